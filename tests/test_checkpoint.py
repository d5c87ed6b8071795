"""Checkpoint loads: network sizes since removed are dropped where they hold the value that is
now the only behaviour, and refused in one sentence where they do not; a network trained
before its game gained input planes plays as before and its run resumes."""
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from alphazero.config.paths import PRETRAINED_DIR
from alphazero.train.replay import ReplayBuffer
from alphazero.train.trainer import Trainer
from games import make_game

SHIPPED = sorted(PRETRAINED_DIR.glob("*.pt"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_shipped_networks_load_without_the_removed_sizes(path):
    saved = checkpoint.load(path)
    assert not saved["model_sizes"].keys() & checkpoint.REMOVED_SIZES.keys()
    game = make_game(saved["game"], **saved["game_params"])
    build_model(saved["model_kind"], game, **saved["model_sizes"]).load_state_dict(saved["model"])


@pytest.mark.parametrize("key, value", [("head_slope", 0.01), ("head_norm", False),
                                        ("ownership", True)])
def test_a_network_trained_with_a_removed_size_is_refused_in_one_sentence(tmp_path, key, value):
    path = tmp_path / "old.pt"
    torch.save({"game": "connect4", "model_kind": "cnn",
                "model_sizes": {"channels": [8], key: value}, "model": {}}, path)
    with pytest.raises(checkpoint.CheckpointError, match=f"model.sizes.{key}=") as error:
        checkpoint.load(path)
    assert str(error.value).count(". ") == 0 and "Removed options" in str(error.value)


def random_positions(game, count, seed=0):
    rng = np.random.default_rng(seed)
    planes = []
    while len(planes) < count:
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 30))):
            if game.status(state) == 0:
                game.play(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        planes.append(game.encode(state))
    return torch.from_numpy(np.stack(planes))


def test_a_network_from_before_the_side_to_move_plane_plays_exactly_as_before():
    path = PRETRAINED_DIR / "connect4.pt"  # course Connect-4's, trained before the plane
    raw = torch.load(path, weights_only=True)
    assert raw["model"][checkpoint.FIRST_LAYER].shape[1] == 4  # trained on the older encoding
    game = make_game(raw["game"], **raw["game_params"])
    sizes = checkpoint.current_sizes(raw["model_sizes"], path)
    older = build_model(raw["model_kind"], SimpleNamespace(
        planes=4, height=game.height, width=game.width, num_actions=game.num_actions), **sizes)
    older.load_state_dict(raw["model"])
    saved = checkpoint.load(path)
    widened = build_model(saved["model_kind"], game, **saved["model_sizes"])
    widened.load_state_dict(saved["model"])
    planes = random_positions(game, 64)
    assert planes[:, 4].any()
    with torch.no_grad():
        for before, after in zip(older.eval()(planes[:, :4]), widened.eval()(planes)):
            torch.testing.assert_close(after, before, rtol=0, atol=1e-6)


def test_a_run_from_before_the_side_to_move_plane_resumes(tmp_path):
    game = make_game("connect4", rows=6, cols=7)
    shape = SimpleNamespace(planes=4, height=game.height, width=game.width,
                            num_actions=game.num_actions)
    trainer_args = {"lr": 1e-3, "weight_decay_l2": 1e-4, "optimizer": "adam"}
    older = Trainer(build_model("cnn", shape, channels=[8]), **trainer_args)
    planes = random_positions(game, 16)
    pis = torch.full((16, game.num_actions), 1 / game.num_actions)
    older.train_step(planes[:, :4], pis, torch.zeros(16))
    buffer = ReplayBuffer(64, 4, game.height, game.width, game.num_actions)
    buffer._write(planes[:, :4].numpy().astype(np.uint8), pis.numpy().astype(np.float16),
                  np.zeros(16, np.float32))
    checkpoint.save_atomic({"game": "connect4", "model": older.model.state_dict(),
                            "optimizer": older.state_dict()}, tmp_path / "latest.pt")
    checkpoint.save_atomic(buffer.state_dict(), tmp_path / "replay.pt")

    saved = checkpoint.load(tmp_path / "latest.pt")
    resumed = Trainer(build_model("cnn", game, channels=[8]), **trainer_args)
    resumed.model.load_state_dict(saved["model"])
    resumed.load_state_dict(saved["optimizer"])
    widened = ReplayBuffer(64, 5, game.height, game.width, game.num_actions)
    widened.load_state_dict(checkpoint.widen_replay(checkpoint.load(tmp_path / "replay.pt"),
                                                    "connect4"))
    assert np.array_equal(widened.planes[:16], planes.numpy())
    first = resumed.model.state_dict()[checkpoint.FIRST_LAYER]
    assert not first[:, 4].any() and torch.equal(first[:, :4], older.model.state_dict()[checkpoint.FIRST_LAYER])
    resumed.train_step(*widened.sample(16, np.random.default_rng(0)))
    assert resumed.model.state_dict()[checkpoint.FIRST_LAYER][:, 4].any()  # the new plane learns


def started_run_folder(folder):
    """What a command's start writes into its run folder (checkpoint.STARTUP_FILES)."""
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "config.yaml").write_text("game: {}\n")
    (folder / "curve.log").write_text("")
    (folder / "events.out.tfevents.1.host").write_bytes(b"")
    return folder


def test_a_failed_start_leaves_no_folder_up_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "othello").mkdir(parents=True)  # another game's runs stay
    checkpoint.discard_run_folder(started_run_folder(tmp_path / "runs" / "connect6" / "curve" / "t1"))
    assert [p.name for p in tmp_path.rglob("*")] == ["runs", "othello"]


def test_a_run_folder_holding_anything_else_stays(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = started_run_folder(tmp_path / "mine")
    (folder / "notes.txt").write_text("kept")
    checkpoint.discard_run_folder(folder)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_a_run_folder_outside_the_working_directory_goes_with_its_parent_at_most(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    checkpoint.discard_run_folder(started_run_folder(tmp_path / "empty" / "runs" / "0"))
    assert [p.name for p in (tmp_path / "empty").iterdir()] == []
