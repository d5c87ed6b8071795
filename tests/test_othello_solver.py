"""The Othello endgame solver against a plain minimax over the game's own rules (games.othello.rules's
play, legal moves and score), on positions with few empty cells, in both rule sets."""
import numpy as np
import pytest

from games import ONGOING, make_game
from games.othello.rules import PASS
from games.othello.solver import ILLEGAL, OthelloSolver


def brute_force(game, state, counts) -> int:
    """Final disc difference for the side to move under perfect play, by full minimax through
    the game's own kernels; counts["passes"] tallies the passes met on the way."""
    if game.status(state) != ONGOING:
        mover_sign = 1 if game.to_move(state) == 0 else -1
        return mover_sign * game.score(state)
    best = None
    for action in game.legal_list(state):
        counts["passes"] += action == PASS
        child = state.copy()
        game.play(child, action)
        # A pass or a move both hand the turn over, so the child's value is the opponent's.
        value = -brute_force(game, child, counts) if game.to_move(child) != game.to_move(state) \
            else brute_force(game, child, counts)
        best = value if best is None else max(best, value)
    return best


@pytest.mark.parametrize("rules", ["course", "standard"])
def test_values_match_brute_force_with_passes(rules, endgame):
    game = make_game("othello", rules=rules)
    solver = OthelloSolver(game, table_bits=12)  # a small table: slots are shared and replaced
    rng = np.random.default_rng(7)
    counts = {"passes": 0}
    root_passes = 0
    for _ in range(40):
        state = endgame(game, rng, int(rng.integers(1, 8)))
        values = solver.move_values(state)
        legal = game.legal_mask(state)
        assert (values[~legal] == ILLEGAL).all()
        root_passes += bool(legal[PASS])
        for action in np.flatnonzero(legal):
            child = state.copy()
            game.play(child, int(action))
            assert values[action] == -brute_force(game, child, counts), game.render(state)
        assert solver.solve(state) == values[legal].max() == brute_force(game, state, counts)
    assert counts["passes"] > 0  # the positions exercised passes deep in the tree
    assert root_passes > 0 or rules == "course"  # in course rules the central 6x6 rarely runs out


def test_root_pass_is_valued(endgame):
    """A side with no move has one action, the pass, worth the opponent's value negated."""
    game = make_game("othello", rules="standard")
    solver = OthelloSolver(game)
    rng = np.random.default_rng(3)
    found = 0
    while found < 3:
        state = endgame(game, rng, int(rng.integers(2, 9)))
        if not game.legal_mask(state)[PASS]:
            continue
        found += 1
        values = solver.move_values(state)
        child = state.copy()
        game.play(child, PASS)
        assert values[PASS] == -solver.solve(child) == -brute_force(game, child, {"passes": 0})
        assert (np.delete(values, PASS) == ILLEGAL).all()


def test_finished_game_and_wrong_input(endgame):
    game = make_game("othello", rules="course")
    solver = OthelloSolver(game)
    state = endgame(game, np.random.default_rng(1), 3)
    while game.status(state) == ONGOING:
        game.play(state, game.legal_list(state)[0])
    mover_sign = 1 if game.to_move(state) == 0 else -1
    assert solver.solve(state) == mover_sign * game.score(state)
    with pytest.raises(ValueError, match="the game is over"):
        solver.move_values(state)
    with pytest.raises(ValueError, match="other rule set"):
        OthelloSolver(make_game("othello", rules="standard")).solve(game.new_state())
    with pytest.raises(ValueError, match="needs an Othello game"):
        OthelloSolver(make_game("connect4"))


@pytest.mark.parametrize("rules", ["course", "standard"])
def test_deeper_positions_agree_across_symmetries(rules, endgame):
    """At 12 empty cells (beyond brute force), the eight symmetric copies of a position share
    one value, and each move's value moves with its cell."""
    game = make_game("othello", rules=rules)
    solver = OthelloSolver(game)
    state = endgame(game, np.random.default_rng(5), 12)
    values = solver.move_values(state)
    assert solver.solve(state) == values[game.legal_mask(state)].max()
    _, action_maps = game.symmetries(state)
    for g in range(1, game.num_symmetries):
        image = solver.move_values(game.transform_state(state, g))
        np.testing.assert_array_equal(image[action_maps[g]], values)


@pytest.mark.parametrize("rules", ["course", "standard"])
def test_best_move_is_one_of_the_best_by_exact_value(rules, endgame):
    """best_move (one narrowing root search) agrees with move_values (every move valued on
    its own), roots with a pass included."""
    game = make_game("othello", rules=rules)
    rng = np.random.default_rng(11)
    for _ in range(30):
        state = endgame(game, rng, int(rng.integers(1, 13)))
        values = OthelloSolver(game).move_values(state)
        action, value = OthelloSolver(game).best_move(state)
        assert value == values.max() == values[action], game.render(state)
    with pytest.raises(ValueError, match="the game is over"):
        while game.status(state) == ONGOING:
            game.play(state, game.legal_list(state)[0])
        OthelloSolver(game).best_move(state)
