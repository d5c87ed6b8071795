"""Checkpoint loads: network sizes since removed are dropped where they hold the value that is
now the only behaviour, and refused in one sentence where they do not."""
import pytest
import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from alphazero.config.paths import PRETRAINED_DIR
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
