"""Matches, gating and the strength-ladder command."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf

from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.evaluate.match import (GateState, MatchResult, gate_match, gate_verdict, ladder,
                                      match_openings, play_match, result_row)
from alphazero.evaluate.table import format_row
from alphazero.nn.network import build_model
from alphazero.agent.agent import NetworkAgent, PureMCTSAgent
from games import make_game

from helpers import FirstLegalPlayer, search_settings, uniform_network

ROOT = Path(__file__).resolve().parents[1]
GATE = {"gate": "pure", "games": 4, "start_level": 1, "level_step": 5, "threshold": 0.55,
        "opening_plies": 0}


def test_match_counts_from_the_players_view_with_colours_alternating():
    game = make_game("connect4", rows=6, cols=7)
    strong, weak = PureMCTSAgent(game, 1500, seed=1), FirstLegalPlayer(game)
    result = play_match(game, strong, weak, 4, seed=0)
    assert (result.wins, result.draws, result.losses) == (4, 0, 0)
    reverse = play_match(game, weak, strong, 4, seed=0)
    assert (reverse.wins, reverse.losses) == (0, 4)


def test_results_are_split_by_the_colour_the_player_had():
    # Both sides always take the lowest column, so every game repeats the same one: the first
    # player completes the bottom row before the second completes the row above it.
    game = make_game("connect4", rows=6, cols=7)
    result = play_match(game, FirstLegalPlayer(game), FirstLegalPlayer(game), 6, seed=0)
    assert (result.wins, result.draws, result.losses) == (3, 0, 3)
    assert result.as_first_player == (3, 0, 0)
    row = result_row("a copy of itself", result)
    assert row["as_first_player"] == [3, 0, 0] and row["as_second_player"] == [0, 0, 3]
    assert format_row(row).endswith("0.500     3-0-0      0-0-3")


def test_a_draw_scores_half_a_win():
    result = MatchResult(games=8, wins=5, draws=2, losses=1)
    assert result.win_rate == 0.625 and result.score == 0.75
    assert result_row("x", result)["score"] == 0.75


@pytest.mark.parametrize("make_player", [
    lambda game: NetworkAgent(game, uniform_network, 8, search_settings(), seed=5),
    lambda game: PureMCTSAgent(game, 3, seed=5),
])
def test_reset_restarts_a_players_random_choices_from_its_seed(make_player):
    game = make_game("connect4", rows=6, cols=7)
    player = make_player(game)
    states = np.stack([game.new_state()] * 64)
    first = player.best_actions(states)
    assert not np.array_equal(player.best_actions(states), first)  # the stream moved on
    player.reset()
    np.testing.assert_array_equal(player.best_actions(states), first)


def test_a_ladder_row_is_the_result_of_that_level_played_alone():
    game = make_game("connect4", rows=6, cols=7)
    player = NetworkAgent(game, uniform_network, 8, search_settings(), seed=5)
    alone = ladder(game, player, [30], games=16, seed=1)
    after_another = ladder(game, player, [10, 30], games=16, seed=1)[1]
    assert after_another == alone[0]


def test_openings_are_shared_by_each_pair_and_differ_between_pairs():
    game = make_game("othello", rules="course")
    states = match_openings(game, 8, 6, np.random.default_rng(0))
    plies = game.ply
    assert all(plies(s) == 6 and game.status(s) == 0 for s in states)
    for i in range(0, 8, 2):
        np.testing.assert_array_equal(states[i], states[i + 1])
    assert len({states[i].tobytes() for i in range(0, 8, 2)}) == 4
    plain = match_openings(game, 2, 0, np.random.default_rng(0))
    np.testing.assert_array_equal(plain[0], game.new_state())


def test_openings_that_end_the_game_are_refused():
    game = make_game("connect4", rows=6, cols=7)
    with pytest.raises(ConfigError, match="eval.opening_plies=43"):
        match_openings(game, 2, 43, np.random.default_rng(0))


def gate(game, eval_cfg, state, player, best=None):
    """One gating: the match, then the verdict."""
    result = gate_match(game, eval_cfg, state, player, best, seed=1)
    return (result,) + gate_verdict(eval_cfg, state, result)


def test_a_clean_sweep_raises_the_level_and_promotes():
    game = make_game("connect4", rows=6, cols=7)
    eval_cfg = OmegaConf.create(GATE)
    result, state, promoted = gate(game, eval_cfg, GateState(1), PureMCTSAgent(game, 1500, seed=2))
    assert result.wins == 4 and promoted
    assert state.level == 1 + 5


def test_a_losing_player_is_not_promoted_and_the_level_stays():
    game = make_game("connect4", rows=6, cols=7)
    eval_cfg = OmegaConf.create(GATE)
    result, state, promoted = gate(game, eval_cfg, GateState(300), FirstLegalPlayer(game))
    assert result.wins == 0 and not promoted
    assert state == GateState(300)


def test_a_better_rate_at_the_same_level_promotes_without_raising():
    eval_cfg = OmegaConf.create(GATE)
    state, promoted = gate_verdict(eval_cfg, GateState(300, 0.25), MatchResult(4, 2, 0, 2))
    assert promoted and state == GateState(300, 0.5)
    assert gate_verdict(eval_cfg, state, MatchResult(4, 1, 0, 3)) == (state, False)


def test_previous_gate_needs_the_threshold():
    game = make_game("connect4", rows=6, cols=7)
    eval_cfg = OmegaConf.create(GATE | {"gate": "previous"})
    strong, weak = PureMCTSAgent(game, 1500, seed=3), FirstLegalPlayer(game)
    assert gate(game, eval_cfg, GateState(1), strong, weak)[2]
    assert not gate(game, eval_cfg, GateState(1), weak, strong)[2]
    assert gate_verdict(eval_cfg, GateState(1), None) == (GateState(1), True)  # the first net


def test_wilson_interval():
    low, high = MatchResult(40, 36, 0, 4).interval()
    assert low == pytest.approx(0.769, abs=0.01) and high == pytest.approx(0.961, abs=0.01)


def save_untrained(path, game):
    model = build_model("cnn", game, channels=[8, 8, 8])
    checkpoint.save_atomic({"game": game.name, "game_params": game.params(), "model_kind": "cnn",
                            "model_sizes": {"channels": [8, 8, 8]}, "model": model.state_dict()}, path)


@pytest.mark.integration
def test_ladder_command_writes_table_and_json(tmp_path):
    game = make_game("connect4", rows=5, cols=5)
    save_untrained(tmp_path / "net.pt", game)
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=connect4_classic", "game.params.rows=5",
         "game.params.cols=5", f"checkpoint={tmp_path / 'net.pt'}", "eval.levels=[2,50]",
         "eval.games=4", "mcts.simulations=8", "solver_positions=6", "solver_plies=[2,10]",
         "eval.opening_plies=2", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "run" / "ladder.json").read_text())
    assert report["opening_plies"] == 2 and report["precision"] == "float32"
    assert report["advisors"] == {"proven_outcomes": 4_000_000} and report["seed"] == 0
    ladder = [row for row in report["rows"] if "level" in row]
    solved = [row for row in report["rows"] if "solver" in row]
    assert [row["level"] for row in ladder] == [2, 50]
    assert [row["solver"] for row in solved] == ["checkpoint", "checkpoint, search alone",
                                            "pure MCTS 2", "pure MCTS 50"]
    assert all(row["positions"] == 6 and 0 <= row["optimal"] <= row["outcome_keeping"] <= 1
               for row in solved)
    assert "optimal moves" in result.stdout
    for row in ladder:
        assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 4
        assert row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
    assert "pure MCTS 50" in result.stdout and "win rate" in result.stdout
    assert "8 simulations per move, network in float32" in result.stdout


@pytest.mark.integration
def test_optimal_move_measure_refuses_a_kind_the_game_lacks(tmp_path):
    save_untrained(tmp_path / "net.pt", make_game("othello"))
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=othello", f"checkpoint={tmp_path / 'net.pt'}",
         "eval.levels=[2]", "eval.games=2", "mcts.simulations=4", "solver_positions=5",
         "solver_kind=early", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 2
    assert "solver_kind=early is not for othello" in result.stderr and "Traceback" not in result.stderr
    assert "vs pure MCTS" not in result.stderr  # refused before any game
    assert not (tmp_path / "run" / "ladder.json").exists()


@pytest.mark.integration
def test_ladder_refuses_a_checkpoint_for_another_game(tmp_path):
    save_untrained(tmp_path / "net.pt", make_game("othello"))
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=connect4_classic",
         f"checkpoint={tmp_path / 'net.pt'}", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "plays othello with" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()  # a failed start leaves no folder


@pytest.mark.integration
def test_ladder_refuses_bad_search_settings(tmp_path):
    save_untrained(tmp_path / "net.pt", make_game("othello"))
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=othello", f"checkpoint={tmp_path / 'net.pt'}",
         "mcts.discount=1.5", f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "mcts.discount must be null or a number above 0 and at most 1" in result.stderr
    assert "Traceback" not in result.stderr
