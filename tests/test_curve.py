"""The learning-curve command: every snapshot of a run against the same pure-MCTS levels."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.config.errors import ConfigError
from alphazero.curve import run
from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from games import make_game

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["game=connect4_classic", "game.params.rows=5", "game.params.cols=5", "mcts.simulations=8"]


def save_snapshot(folder: Path, game, games: int) -> None:
    model = build_model("cnn", game, channels=[8, 8, 8])
    checkpoint.save_atomic({"game": game.name, "game_params": game.params(), "model_kind": "cnn",
                            "model_sizes": {"channels": [8, 8, 8]}, "model": model.state_dict(),
                            "counters": {"games": games}}, folder / f"games_{games:07d}.pt")


def curve(tmp_path, *overrides):
    return subprocess.run([sys.executable, "-m", "alphazero.curve", *SMALL, *overrides,
                           f"hydra.run.dir={tmp_path}/run"],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)


def test_curve_measures_every_snapshot_at_every_level(tmp_path):
    game = make_game("connect4", rows=5, cols=5)
    for games in (40, 8):
        save_snapshot(tmp_path / "snaps", game, games)
    result = curve(tmp_path, f"snapshots={tmp_path / 'snaps'}", "eval.levels=[2,30]", "eval.games=2")
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "run" / "curve.json").read_text())
    assert [(r["self_play_games"], r["level"]) for r in report["rows"]] == [
        (8, 2), (8, 30), (40, 2), (40, 30)]
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] == 2 for r in report["rows"])
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    for level in (2, 30):
        scalars = events.Scalars(f"curve/win_rate_vs_{level}")
        assert [e.step for e in scalars] == [8, 40]
    assert "pure MCTS 30" in result.stdout


def test_no_snapshots_is_one_clear_sentence(tmp_path):
    (tmp_path / "empty").mkdir()
    result = curve(tmp_path, f"snapshots={tmp_path / 'empty'}")
    assert result.returncode == 2
    assert "no snapshots in" in result.stderr and "train.snapshot_games" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "curve.json").exists()


# The refusals below are ConfigErrors, which the command turns into one line and exit 2 as it
# does the one above: checked in this process, without starting one each.

def test_a_checkpoint_without_a_game_count_is_refused(tmp_path, compose_config):
    save_snapshot(tmp_path / "snaps", make_game("connect4", rows=5, cols=5), 8)
    saved = checkpoint.load(tmp_path / "snaps" / "games_0000008.pt")
    del saved["counters"]
    checkpoint.save_atomic(saved, tmp_path / "snaps" / "games_0000008.pt")
    cfg = compose_config("curve", *SMALL, "eval.levels=[2]", "eval.games=2")
    with pytest.raises(ConfigError, match="not a training snapshot"):
        run(cfg, tmp_path / "snaps", tmp_path / "run")


def test_bad_levels_are_refused_before_any_game(tmp_path, compose_config):
    save_snapshot(tmp_path / "snaps", make_game("connect4", rows=5, cols=5), 8)
    cfg = compose_config("curve", *SMALL, "eval.levels=[0]")
    with pytest.raises(ConfigError, match=r"eval\.levels must be"):
        run(cfg, tmp_path / "snaps", tmp_path / "run")
    assert not (tmp_path / "run").exists()  # refused before its writer was opened
