"""The learning-curve command: every snapshot of a run against the same pure-MCTS levels, in
a round robin with the shipped network and the levels, rated (the Elo ladder), or on Pons'
Connect-4 sets against the self-play simulations that trained it."""
import copy
import itertools
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from omegaconf import OmegaConf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.config.errors import ConfigError
from alphazero.curve import run
from alphazero.evaluate.elo import fit_elo
from alphazero.evaluate.stage_plot import stage_svg
from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from games import make_game
from games.core.connect4_stage_sets import SET_NAMES

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["game=connect4_classic", "game.params.rows=5", "game.params.cols=5", "mcts.simulations=8"]


def save_snapshot(folder: Path, game, games: int, **entries) -> None:
    model = build_model("cnn", game, channels=[8, 8, 8])
    checkpoint.save_atomic({"game": game.name, "game_params": game.params(), "model_kind": "cnn",
                            "model_sizes": {"channels": [8, 8, 8]}, "model": model.state_dict(),
                            "counters": {"games": games}} | entries,
                           folder / f"games_{games:07d}.pt")


def curve(tmp_path, *overrides):
    return subprocess.run([sys.executable, "-m", "alphazero.curve", *SMALL, *overrides,
                           f"out_dir={tmp_path}/run"],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)


@pytest.mark.integration
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


@pytest.mark.integration
def test_no_snapshots_is_one_clear_sentence(tmp_path):
    (tmp_path / "empty").mkdir()
    result = curve(tmp_path, f"snapshots={tmp_path / 'empty'}")
    assert result.returncode == 2
    assert "no snapshots in" in result.stderr and "train.snapshot_games" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()  # nor a folder holding only its log


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


# ----------------------------------------------------------------------------- the Elo ladder

TRUE_ELO = np.array([0.0, 200.0, -150.0, 400.0, 700.0])


def synthetic_results(games: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of TRUE_ELO's players `games` games, a fifth of them drawn where even."""
    count = len(TRUE_ELO)
    scores, played = np.zeros((count, count)), np.zeros((count, count))
    for i, j in itertools.combinations(range(count), 2):
        expected = 1 / (1 + 10 ** ((TRUE_ELO[j] - TRUE_ELO[i]) / 400))
        drawn = 0.4 * min(expected, 1 - expected)
        won = (expected - drawn / 2) / (1 - drawn)
        wins, draws, _ = rng.multinomial(games, [won * (1 - drawn), drawn, (1 - won) * (1 - drawn)])
        scores[i, j], scores[j, i] = wins + draws / 2, games - wins - draws / 2
        played[i, j] = played[j, i] = games
    return scores, played


def test_the_fit_recovers_known_ratings_with_error_bars_that_shrink_with_games():
    rng = np.random.default_rng(0)
    ratings, errors = fit_elo(*synthetic_results(2000, rng), anchor=0)
    assert ratings[0] == errors[0] == 0
    assert np.all(np.abs(ratings - TRUE_ELO) <= 3 * errors)
    assert np.all(np.abs(ratings - TRUE_ELO) < 40)
    _, fewer_games_errors = fit_elo(*synthetic_results(200, rng), anchor=0)
    assert np.allclose(fewer_games_errors[1:] / errors[1:], np.sqrt(10), rtol=0.25)
    # a player who won every game still gets a finite rating, above the others
    scores, played = synthetic_results(20, rng)
    scores[4], scores[:, 4] = played[4], 0
    ratings, errors = fit_elo(scores, played, anchor=0)
    assert np.isfinite(ratings).all() and ratings.argmax() == 4 and errors[4] > 0


def test_a_tiny_round_robin_rates_every_snapshot_and_anchor(tmp_path, compose_config, capsys):
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    for games in (40, 8):
        save_snapshot(tmp_path / "snaps", game, games)
    cfg = compose_config("curve", "game=connect4_classic", "search_alone=true", "mcts.simulations=8",
                         "eval.levels=[2]", "curve.mode=elo", "curve.games=2")
    players = run(cfg, tmp_path / "snaps", tmp_path / "run")
    names = ["pure MCTS 2", "shipped connect4_classic.pt", "games_0000008", "games_0000040"]
    assert [p["player"] for p in players] == names
    assert players[0]["elo"] == players[0]["error"] == 0  # the anchor
    assert all(p["error"] > 0 and p["games"] == 6 for p in players[1:])
    report = json.loads((tmp_path / "run" / "elo.json").read_text())
    assert len(report["matches"]) == 6 and report["players"] == players
    assert all(m["games"] == m["wins"] + m["draws"] + m["losses"] == 2 for m in report["matches"])
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    for tag in ("curve/elo", "curve/elo_ci95_low", "curve/elo_ci95_high", "curve/elo_shipped"):
        assert [e.step for e in events.Scalars(tag)] == [8, 40]
    table = capsys.readouterr().out
    assert "anchor" in table and all(name in table for name in names)
    plot = (tmp_path / "run" / "elo.svg").read_text()
    assert plot.count("<circle") == 2 and "pure MCTS 2" in plot and "shipped connect4_classic.pt" in plot


def test_bad_ladder_settings_are_refused_before_any_game(tmp_path, compose_config):
    save_snapshot(tmp_path / "snaps", make_game("connect4", rows=5, cols=5), 8)
    ladder = compose_config("curve", *SMALL, "curve.mode=elo")
    for key, value, words in [("curve.mode", "ladder", "curve.mode must be one of winrate, elo"),
                              ("curve.games", 3, "curve.games must be an even number"),
                              ("curve.opening_plies", -1, "curve.opening_plies"),
                              ("opponent", "gtp:true", "opponent= is for curve.mode=winrate")]:
        cfg = copy.deepcopy(ladder)
        OmegaConf.update(cfg, key, value)
        with pytest.raises(ConfigError, match=words):
            run(cfg, tmp_path / "snaps", tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ----------------------------------------------------------------------------- Pons' sets

def test_every_snapshot_is_scored_on_ponss_sets_by_its_selfplay_simulations(tmp_path,
                                                                            compose_config):
    game = make_game("connect4", rows=6, cols=7, forbidden=None)
    # a quarter of the plies searched 200 times and recorded, the rest 32 times: 296 a position
    config = {"selfplay": {"full_search_share": 0.25, "fast_simulations": 32},
              "mcts": {"simulations": 200}}
    for games, positions in ((40, 1500), (8, 300)):
        save_snapshot(tmp_path / "snaps", game, games, config=config,
                      counters={"games": games, "positions": positions})
    cfg = compose_config("curve", "game=connect4_classic", "search_alone=true",
                         "mcts.simulations=2", "selfplay.precision=float32",
                         "curve.mode=stages", "curve.positions=4")
    rows = run(cfg, tmp_path / "snaps", tmp_path / "run")
    assert [(r["self_play_games"], r["selfplay_simulations"]) for r in rows] == [
        (8, 300 * 296), (40, 1500 * 296)]
    for r in rows:
        assert list(r["mistakes"]) == list(SET_NAMES)
        assert all(percent in (0, 25, 50, 75, 100) for percent in r["mistakes"].values())
    report = json.loads((tmp_path / "run" / "stages.json").read_text())
    assert report["rows"] == rows and report["positions_per_set"] == 4
    assert "AlphaZero.jl tutorial" in report["references"]
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    assert [e.step for e in events.Scalars("curve/mistakes_begin-hard")] == [8, 40]
    plot = ElementTree.parse(tmp_path / "run" / "stages.svg").getroot()  # well-formed
    lines = plot.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 6 * 2  # a line a set: the run's and AlphaZero.jl's


def test_the_stage_curve_is_for_classic_connect4_alone(tmp_path, compose_config):
    save_snapshot(tmp_path / "snaps", make_game("connect4", rows=5, cols=5), 8)
    cfg = compose_config("curve", *SMALL, "curve.mode=stages")
    with pytest.raises(ConfigError, match="classic Connect-4 positions"):
        run(cfg, tmp_path / "snaps", tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_snapshot_that_does_not_say_how_it_self_played_is_refused(tmp_path, compose_config):
    save_snapshot(tmp_path / "snaps", make_game("connect4", rows=6, cols=7, forbidden=None), 8)
    cfg = compose_config("curve", "game=connect4_classic", "curve.mode=stages")
    with pytest.raises(ConfigError, match="its simulations are unknown"):
        run(cfg, tmp_path / "snaps", tmp_path / "run")


def test_the_plot_puts_a_point_where_its_simulations_and_mistakes_say():
    rows = [{"selfplay_simulations": 1e6, "mistakes": {"end-easy": 0.0}},
            {"selfplay_simulations": 1e8, "mistakes": {"end-easy": 10.0}}]
    plot = ElementTree.fromstring(stage_svg(rows, {}, "t"))
    (line,) = plot.findall("{http://www.w3.org/2000/svg}polyline")
    (x0, y0), (x1, y1) = (map(float, p.split(",")) for p in line.get("points").split())
    assert x0 < x1 and y0 > y1  # more simulations to the right, more mistakes higher
