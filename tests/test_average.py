"""Weight averaging: the mean of several snapshots of one run, as an ordinary checkpoint."""
import subprocess
import sys
from pathlib import Path

import torch

from alphazero import checkpoint
from alphazero.network import build_model
from alphazero.players import checkpoint_player
from games import make_game
from tests.test_play import compose_config

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"channels": [4, 4], "policy_channels": 2, "value_channels": 1, "value_hidden": 8,
         "head_norm": True}


def save_snapshot(path: Path, game, games: int, seed: int) -> dict:
    torch.manual_seed(seed)
    model = build_model("cnn", game, **SIZES)
    model.policy_head[1].num_batches_tracked.fill_(games)  # batch norm's step counter
    payload = {"game": game.name, "game_params": game.params(), "model_kind": "cnn",
               "model_sizes": SIZES, "model": model.state_dict(), "counters": {"games": games},
               "config": {"mcts": {"discount": 1.0}}}
    checkpoint.save_atomic(payload, path)
    return payload


def average(*args):
    return subprocess.run([sys.executable, "-m", "alphazero.average", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_average_is_the_mean_of_the_weights_with_the_last_snapshots_counters(tmp_path):
    game = make_game("connect4", rows=5, cols=5)
    saved = [save_snapshot(tmp_path / f"games_{n}.pt", game, n, seed) for seed, n in
             enumerate((100, 200, 300))]
    result = average("--out", tmp_path / "avg.pt", *(tmp_path / f"games_{n}.pt" for n in (100, 200, 300)))
    assert result.returncode == 0, result.stderr
    out = checkpoint.load(tmp_path / "avg.pt")
    for key, tensor in out["model"].items():
        if tensor.is_floating_point():
            expected = sum(s["model"][key] for s in saved) / 3
            assert torch.allclose(tensor, expected), key
    assert out["model"]["policy_head.1.num_batches_tracked"].item() == 300
    assert out["counters"] == {"games": 300}
    assert out["averaged_from"] == ["games_100.pt", "games_200.pt", "games_300.pt"]
    # The average is a network like any other: the evaluator's player loads it and moves.
    cfg = compose_config("evaluate", "game=connect4_classic", "game.params.rows=5",
                         "game.params.cols=5", "mcts.simulations=8")
    player = checkpoint_player(game, cfg, out, tmp_path / "avg.pt", seed=0)
    state = game.new_state()
    assert game.legal_mask(state)[player.best_actions(state)[0]]


def test_snapshots_of_different_networks_are_refused_and_nothing_written(tmp_path):
    save_snapshot(tmp_path / "a.pt", make_game("connect4", rows=5, cols=5), 100, 0)
    save_snapshot(tmp_path / "b.pt", make_game("connect4", rows=6, cols=5), 200, 1)
    result = average("--out", tmp_path / "avg.pt", tmp_path / "a.pt", tmp_path / "b.pt")
    assert result.returncode == 2
    assert result.stderr.startswith("error: b.pt differs from a.pt in game_params")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "avg.pt").exists()


def test_bad_arguments_are_one_sentence(tmp_path):
    game = make_game("connect4", rows=5, cols=5)
    save_snapshot(tmp_path / "a.pt", game, 100, 0)
    save_snapshot(tmp_path / "b.pt", game, 200, 1)
    for args, words in [((tmp_path / "a.pt",), "at least two snapshots"),
                        ((tmp_path / "a.pt", tmp_path / "missing.pt"), "no checkpoint at"),
                        ((tmp_path / "a.pt", tmp_path / "b.pt"), "is one of the snapshots")]:
        out = tmp_path / "b.pt" if words == "is one of the snapshots" else tmp_path / "avg.pt"
        result = average("--out", out, *args)
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "avg.pt").exists()
