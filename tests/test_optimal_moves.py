"""The optimal-move measure: its positions, its scoring, and where it refuses to run."""
import numpy as np
import pytest

from alphazero.config import ConfigError
from alphazero.optimal_moves import check_supported, optimal_move_rate, random_positions
from games import ONGOING, make_game
from games.connect4_solver import ILLEGAL_MOVE_SCORE, Connect4Solver


class ScoredPlayer:
    """Plays the best (or the worst) legal move by the solver's scores of each position."""

    def __init__(self, positions, best: bool):
        self.scores = {state.tobytes(): s for state, s in zip(*positions)}
        self.best = best

    def reset(self):
        pass  # nothing to forget

    def best_actions(self, states):
        picks = []
        for state in states:
            scores = self.scores[state.tobytes()].astype(float)
            scores[scores == ILLEGAL_MOVE_SCORE] = -np.inf if self.best else np.inf
            picks.append(int(np.argmax(scores) if self.best else np.argmin(scores)))
        return np.array(picks)


@pytest.fixture(scope="module")
def small_board():
    game = make_game("connect4", rows=4, cols=5)
    positions = random_positions(game, Connect4Solver(4, 5), 30, (2, 10), seed=3)
    return game, positions


def test_positions_are_ongoing_and_the_choice_matters(small_board):
    game, (states, scores) = small_board
    assert len(states) == len(scores) == 30
    for state, move_scores in zip(states, scores):
        assert game.status(state) == ONGOING
        legal = game.legal_mask(state)
        assert (move_scores[~legal] == ILLEGAL_MOVE_SCORE).all()
        assert move_scores[legal].min() < move_scores[legal].max()


def test_positions_are_reproducible():
    game = make_game("connect4", rows=4, cols=5)
    a = random_positions(game, Connect4Solver(4, 5), 5, (2, 10), seed=9)[0]
    b = random_positions(game, Connect4Solver(4, 5), 5, (2, 10), seed=9)[0]
    np.testing.assert_array_equal(np.stack(a), np.stack(b))


def test_perfect_player_scores_one_and_worst_player_zero(small_board):
    _, positions = small_board
    perfect = optimal_move_rate(ScoredPlayer(positions, best=True), *positions)
    worst = optimal_move_rate(ScoredPlayer(positions, best=False), *positions)
    assert perfect == {"positions": 30, "optimal": 1.0, "outcome_keeping": 1.0,
                       "slower_wins": 0, "faster_losses": 0, "dropped": 0}
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
    result = optimal_move_rate(RunnerUpPlayer(positions, best=True), *positions)
    kinds = {"slower_wins": 0, "faster_losses": 0, "dropped": 0}
    for move_scores in positions[1]:
        legal = np.unique(move_scores[move_scores != ILLEGAL_MOVE_SCORE])
        best, got = legal[-1], legal[-2]
        if np.sign(got) != np.sign(best):
            kinds["dropped"] += 1
        else:
            kinds["slower_wins" if best > 0 else "faster_losses"] += 1
    assert result["optimal"] == 0.0
    assert {key: result[key] for key in kinds} == kinds
    assert kinds["slower_wins"] and kinds["dropped"]  # the positions hold both kinds
    assert result["dropped"] == round(30 * (1 - result["outcome_keeping"]))


@pytest.mark.parametrize("params", [{"rows": 6, "cols": 7, "forbidden": [2, 3]},
                                    {"rows": [9, 12], "cols": [9, 12], "forbidden": None}])
def test_needs_one_board_without_a_forbidden_cell(params):
    with pytest.raises(ConfigError, match="without a forbidden cell"):
        check_supported(make_game("connect4", **params))
    with pytest.raises(ConfigError):
        check_supported(make_game("othello"))
