"""The optimal-move measure: its positions, its scoring, the evaluate hook, and where it
refuses to run."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero.nn import checkpoint
from alphazero.config.errors import ConfigError
from alphazero.nn.network import build_model
from alphazero.evaluate.judges import make_judge, optimal_move_rate, solved_positions
from games import ONGOING, make_game
from games.connect4.solver import ILLEGAL_MOVE_SCORE, Connect4Solver
from games.othello.judge import ENDGAME_EMPTIES
from games.othello.solver import OthelloSolver
from helpers import ScoredPlayer

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small_board():
    game = make_game("connect4", rows=4, cols=5)
    positions = solved_positions(game, 30, "random", (2, 10), seed=3)
    return game, positions


def test_positions_are_ongoing_and_the_choice_matters(small_board):
    game, (states, scores, exact) = small_board
    assert exact
    assert len(states) == len(scores) == 30
    for state, move_scores in zip(states, scores):
        assert game.status(state) == ONGOING
        legal = game.legal_mask(state)
        assert (move_scores[~legal] == ILLEGAL_MOVE_SCORE).all()
        assert move_scores[legal].min() < move_scores[legal].max()


def test_positions_are_reproducible():
    game = make_game("connect4", rows=4, cols=5)
    a = solved_positions(game, 5, "random", (2, 10), seed=9)[0]
    b = solved_positions(game, 5, "random", (2, 10), seed=9)[0]
    np.testing.assert_array_equal(np.stack(a), np.stack(b))


def test_perfect_player_scores_one_and_worst_player_zero(small_board):
    _, positions = small_board
    perfect = optimal_move_rate(ScoredPlayer(*positions[:2], best=True), *positions)
    worst = optimal_move_rate(ScoredPlayer(*positions[:2], best=False), *positions)
    assert perfect == {"positions": 30, "optimal": 1.0, "outcome_keeping": 1.0,
                       "weaker_wins": 0, "worse_losses": 0, "dropped": 0}
    assert worst["optimal"] == 0.0 and worst["outcome_keeping"] < 1.0


class RunnerUpPlayer(ScoredPlayer):
    """Plays a move of the second-best score: never optimal, often still keeping the result."""

    def best_actions(self, states):
        picks = []
        for state in states:
            scores = self.scores[state.tobytes()]
            runner_up = np.unique(scores[scores != ILLEGAL_MOVE_SCORE])[-2]
            picks.append(int(np.flatnonzero(scores == runner_up)[0]))
        return np.array(picks)


def test_misses_are_split_by_kind(small_board):
    """Every miss is a slower win, a faster loss or a dropped outcome, by the signs of the
    chosen and the best score."""
    _, positions = small_board
    result = optimal_move_rate(RunnerUpPlayer(*positions[:2], best=True), *positions)
    kinds = {"weaker_wins": 0, "worse_losses": 0, "dropped": 0}
    for move_scores in positions[1]:
        legal = np.unique(move_scores[move_scores != ILLEGAL_MOVE_SCORE])
        best, got = legal[-1], legal[-2]
        if np.sign(got) != np.sign(best):
            kinds["dropped"] += 1
        else:
            kinds["weaker_wins" if best > 0 else "worse_losses"] += 1
    assert result["optimal"] == 0.0
    assert {key: result[key] for key in kinds} == kinds
    assert kinds["weaker_wins"] and kinds["dropped"]  # the positions hold both kinds
    assert result["dropped"] == round(30 * (1 - result["outcome_keeping"]))


def test_early_positions_are_judged_by_outcome():
    """`early`: 8-14 random plies, each column labelled win, draw or loss (the solver's
    outcome mode is checked against brute force in test_connect4_solver), no `optimal`."""
    game = make_game("connect4", rows=4, cols=5)
    states, outcomes, exact = solved_positions(game, 8, "early", (0, 0), seed=4)
    assert not exact
    for state, move_outcomes in zip(states, outcomes):
        assert 8 <= game.ply(state) <= 14
        legal = move_outcomes[game.legal_mask(state)]
        assert set(legal) <= {-1, 0, 1} and len(set(legal)) > 1
    rates = optimal_move_rate(ScoredPlayer(states, outcomes, best=False), states, outcomes, exact)
    assert "optimal" not in rates and rates["dropped"] == 8  # the worst move always drops


@pytest.mark.parametrize("rules", ["course", "standard"])
@pytest.mark.parametrize("kind", ["random", "selfplay"])
def test_othello_endgames_are_solved(rules, kind):
    game = make_game("othello", rules=rules)
    states, values, exact = solved_positions(game, 3, kind, (0, 0), seed=2)
    solver = OthelloSolver(game)
    corners = 4 if rules == "course" else 0
    for state, move_values in zip(states, values):
        empties = int((game.board(state) == 0).sum()) - corners
        assert ENDGAME_EMPTIES[0] <= empties <= ENDGAME_EMPTIES[1] and game.status(state) == ONGOING
        np.testing.assert_array_equal(move_values, solver.move_values(state))
    perfect = optimal_move_rate(ScoredPlayer(states, values, best=True), states, values, exact)
    worst = optimal_move_rate(ScoredPlayer(states, values, best=False), states, values, exact)
    assert perfect["optimal"] == perfect["outcome_keeping"] == 1.0 and worst["optimal"] == 0.0


@pytest.mark.integration
def test_evaluate_scores_othello_endgames(tmp_path):
    """The hook: `solver_positions=N` on Othello adds a row per player to the report."""
    game = make_game("othello")
    model = build_model("cnn", game, channels=[8, 8, 8])
    checkpoint.save_atomic({"game": game.name, "game_params": game.params(), "model_kind": "cnn",
                            "model_sizes": {"channels": [8, 8, 8]}, "model": model.state_dict()},
                           tmp_path / "net.pt")
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.evaluate", "game=othello", f"checkpoint={tmp_path / 'net.pt'}",
         "eval.levels=[3]", "eval.games=2", "mcts.simulations=4", "solver_positions=4",
         f"out_dir={tmp_path}/run"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    solved = [row for row in json.loads((tmp_path / "run" / "ladder.json").read_text())["rows"]
              if "solver" in row]
    assert [row["solver"] for row in solved] == ["checkpoint", "checkpoint, search alone", "pure MCTS 3"]
    assert all(row["positions"] == 4 and row["kind"] == "random"
               and 0 <= row["optimal"] <= row["outcome_keeping"] <= 1 for row in solved)
    assert "solved random positions" in result.stdout


@pytest.mark.parametrize("params", [{"rows": 6, "cols": 7, "forbidden": [2, 3]},
                                    {"rows": [9, 12], "cols": [9, 12], "forbidden": None}])
def test_needs_one_board_without_a_forbidden_cell(params):
    with pytest.raises(ConfigError, match="without a forbidden cell"):
        make_judge(make_game("connect4", **params), "random")


def test_refuses_other_games_and_kinds():
    with pytest.raises(ConfigError, match="needs a game with an exact judge .connect4, openspiel, othello., not connect6"):
        make_judge(make_game("connect6"), "random")
    with pytest.raises(ConfigError, match="solver_kind=early is not for othello"):
        make_judge(make_game("othello"), "early")
    with pytest.raises(ConfigError, match="solver_kind must be one of"):
        make_judge(make_game("othello"), "openings")
