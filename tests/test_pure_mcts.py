"""Pure MCTS (UCT with random rollouts): known answers and the shape of its output."""
import numpy as np
import pytest

from alphazero.search.pure_mcts import EDGE_START, STATUS, TO_PLAY, TRIED, PureMCTS
from games import make_game

from helpers import BLOCK_ONLY, WIN_IN_ONE


@pytest.mark.parametrize("case", WIN_IN_ONE + BLOCK_ONLY, ids=lambda c: f"{c[0]}-{c[4]}")
def test_pure_mcts_finds_known_move(case, position):
    name, params, moves, answers, _ = case
    game, state = position(name, params, moves)
    player = PureMCTS(game, 20000, seed=1)
    assert game.format_move(state, int(player.best_actions(state)[0])) in answers


def test_pure_mcts_wins_through_an_othello_pass(othello_pass_win):
    game, state, wins = othello_pass_win()
    assert int(PureMCTS(game, 3000, seed=2).best_actions(state)[0]) in wins


def test_many_positions_at_once():
    game = make_game("connect4", rows=6, cols=7)
    start = game.new_state()
    finished = start.copy()
    game.play_moves(finished, [1, 2, 1, 2, 1, 2, 1])
    states = np.stack([start, finished, start])
    visits, values = PureMCTS(game, 500, seed=3).search(states)
    assert visits[0].sum() == 500 and visits[2].sum() == 500  # one child per iteration
    assert visits[1].sum() == 0  # a finished game is not searched
    assert 0.0 <= values[0] <= 1.0
    assert PureMCTS(game, 500).best_actions(states)[1] == -1


def test_search_is_reproducible_with_a_seed():
    game = make_game("othello", rules="course")
    state = game.new_state()
    a = PureMCTS(game, 800, seed=7).search(state)[0]
    b = PureMCTS(game, 800, seed=7).search(state)[0]
    np.testing.assert_array_equal(a, b)


def test_bad_playout_count_is_refused():
    with pytest.raises(ValueError, match="at least one playout"):
        PureMCTS(make_game("connect4", rows=6, cols=7), 0)


@pytest.mark.parametrize("name,params", [("connect6", {"size": 7}), ("othello", {"rules": "course"}),
                                         ("connect4", {"rows": 5, "cols": 5})])
def test_edge_statistics_are_consistent(name, params):
    """Every edge's cached UCB1 terms match its counts, and every iteration through an edge
    either created its child or went on through exactly one of the child's edges."""
    game = make_game(name, **params)
    player = PureMCTS(game, 3000, seed=4)
    player.search(game.new_state())
    nodes = player.nodes
    for n in range(len(nodes)):
        start, tried = nodes[n, EDGE_START], nodes[n, TRIED]
        if start < 0 or tried == 0:
            continue
        edges = np.arange(start, start + tried)
        visits = player.edge_visits[edges]
        assert (visits >= 1).all()
        mean, spread = player.edge_terms[edges, 0], player.edge_terms[edges, 1]
        np.testing.assert_allclose(mean, player.edge_reward[edges] / visits, rtol=1e-6)
        np.testing.assert_allclose(spread, 1 / np.sqrt(visits), rtol=1e-6)
        assert ((mean >= 0) & (mean <= 1)).all()
        for e in edges:
            child = player.edge_child[e]
            c_start, c_tried = nodes[child, EDGE_START], nodes[child, TRIED]
            below = player.edge_visits[c_start:c_start + c_tried].sum() if c_start >= 0 else 0
            if nodes[child, STATUS] == 0:  # an ongoing child: one visit created it
                assert below == player.edge_visits[e] - 1


@pytest.mark.parametrize("name,params", [("connect4", {"rows": 6, "cols": 7}),
                                         ("othello", {"rules": "course"})])
def test_saved_positions_do_not_change_the_search(name, params):
    """Iterations that start from a position saved near the root search exactly as those
    that replay every move from the root."""
    game = make_game(name, **params)
    state = game.new_state(np.random.default_rng(0))
    saving, replaying = PureMCTS(game, 3000, seed=5), PureMCTS(game, 3000, seed=5)
    replaying.saved = replaying.saved[:1]  # slot 0 is "none": nothing can be saved
    (visits_a, values_a), (visits_b, values_b) = saving.search(state), replaying.search(state)
    np.testing.assert_array_equal(visits_a, visits_b)
    np.testing.assert_array_equal(values_a, values_b)
    assert (saving.nodes[:, TO_PLAY] >> 1).max() > 1  # several positions were saved
    assert (replaying.nodes[:, TO_PLAY] >> 1).max() == 0


def test_negative_exploration_is_refused():
    with pytest.raises(ValueError, match="exploration"):
        PureMCTS(make_game("connect4", rows=6, cols=7), 10, exploration=-0.5)
