"""Batched PUCT search: positions with known answers, exact convergence, backup signs,
batched == single-tree, and arena exhaustion with tree reuse."""
import numpy as np
import pytest

from alphazero.search.puct import BatchedSearch
from alphazero.search.puct_kernels import NODES_USED, PARENT, STATUS, TO_PLAY, VISITS
from games import FIRST_WON, ONGOING, SECOND_WON, make_game
from games.core.rng import make_rng

from helpers import BLOCK_ONLY, WIN_IN_ONE, search_settings


def uniform_evaluator(planes, legal):
    priors = legal.astype(np.float32)
    return priors / priors.sum(axis=1, keepdims=True), np.zeros(len(planes), dtype=np.float32)


def hashed_evaluator(planes, legal):
    """Deterministic, position-dependent priors and values: a stand-in for a network."""
    flat = planes.reshape(len(planes), -1)
    weights = np.sin(np.arange(flat.shape[1]) * 0.37 + 1.0)
    code = flat @ weights
    actions = np.arange(legal.shape[1])
    logits = np.sin(code[:, None] * 1.3 + actions[None, :] * 0.71)
    priors = np.where(legal, np.exp(logits), 0.0)
    priors /= priors.sum(axis=1, keepdims=True)
    return priors.astype(np.float32), np.tanh(np.cos(code)).astype(np.float32)


def best_move(game, state, simulations, evaluator=uniform_evaluator, **config):
    search = BatchedSearch(game, 1, simulations, search_settings(**config))
    search.set_root(0, state)
    search.run(evaluator)
    visits = search.visit_counts()[0]
    return game.format_move(state, int(np.argmax(visits)))


@pytest.mark.parametrize("case", WIN_IN_ONE + BLOCK_ONLY, ids=lambda c: f"{c[0]}-{c[4]}")
def test_puct_finds_known_move(case, position, winning_moves):
    name, params, moves, answers, _ = case
    game, state = position(name, params, moves)
    # The hand-written answer is proved by exhaustive search first.
    proved = {game.format_move(state, a) for a in winning_moves(game, state, 1)}
    if case in WIN_IN_ONE and name != "connect6":
        assert proved == answers
    # Uniform priors give no hint: the search must try every first stone and its replies.
    assert best_move(game, state, 20000) in answers


def test_puct_wins_through_an_othello_pass(othello_pass_win):
    game, state, wins = othello_pass_win()
    assert game.parse_move(state, best_move(game, state, 1500)) in wins


def solve_connect4_4x4():
    """Exact scores (for the side to move) of every position reachable on 4x4 Connect-4, by
    plain negamax with a memo: WIN - n for a win n plies away, -(WIN - n) for a loss, 0 for a
    draw. Also the sign of each score (its value) keyed by the network encoding."""
    game = make_game("connect4", rows=4, cols=4)
    by_planes = {}
    memo = {}

    def score(state):
        key = state.tobytes()
        if key in memo:
            return memo[key]
        code = game.status(state)
        if code != ONGOING:
            result = 0 if code == 3 else -WIN  # the side to move never just won
        else:
            result = -WIN
            for action in game.legal_list(state):
                child = state.copy()
                game.play(child, action)
                result = max(result, one_ply_earlier(-score(child)))
            by_planes[game.encode(state).tobytes()] = float(np.sign(result))
        memo[key] = result
        return result

    def value(state):
        return float(np.sign(score(state)))

    start = game.new_state()
    return game, start, value, score, by_planes


WIN = 100


def one_ply_earlier(score):
    """A score seen one ply further from the end: wins and losses are one ply further off."""
    return score - 1 if score > 0 else score + 1 if score < 0 else 0


def ongoing_positions(game, start):
    """Every position reachable from `start` with the game still on, once each, breadth-first."""
    seen, frontier = {start.tobytes()}, [start]
    while frontier:
        following = []
        for state in frontier:
            yield state
            for action in game.legal_list(state):
                child = state.copy()
                game.play(child, action)
                if game.status(child) == ONGOING and child.tobytes() not in seen:
                    seen.add(child.tobytes())
                    following.append(child)
        frontier = following


def decided_position(winning_moves, game, start, value):
    """The first position (breadth-first) that the side to move wins by force in three
    plies but not in one, so the search must look past the first move to see it. (Deeper
    forced wins converge too, but slowly: PUCT averages in its exploration at every level.)"""
    for state in ongoing_positions(game, start):
        if value(state) == 1 and not winning_moves(game, state, 1) and winning_moves(game, state, 3):
            return state
    raise AssertionError("4x4 Connect-4 has no decided position")


def test_root_value_converges_to_the_solved_value(winning_moves):
    game, start, value, _, by_planes = solve_connect4_4x4()
    value(start)
    state = decided_position(winning_moves, game, start, value)
    truth = value(state)

    def exact(planes, legal):
        values = np.array([by_planes[p.tobytes()] for p in planes], dtype=np.float32)
        return uniform_evaluator(planes, legal)[0], values

    errors = []
    for sims in (50, 400, 3000):
        search = BatchedSearch(game, 1, sims, search_settings())
        search.set_root(0, state)
        search.run(exact)
        errors.append(abs(search.root_values()[0] - truth))
    assert errors[-1] < 0.1
    assert errors[-1] < errors[0]


def quick_and_slow_wins(game, start, score):
    """Every 4x4 position whose side to move has winning moves of different lengths, none
    winning at once (a win in one is found without any discount), with each move's score."""
    cases = []
    for state in ongoing_positions(game, start):
        move_scores = {}
        for action in game.legal_list(state):
            child = state.copy()
            game.play(child, action)
            move_scores[action] = one_ply_earlier(-score(child))
        wins = {v for v in move_scores.values() if v > 0}
        if len(wins) >= 2 and max(wins) < WIN - 1:
            cases.append((state, move_scores))
    return cases


def values_by_planes(values: dict):
    """An evaluator whose leaf values come from `values` (encoded planes -> value), priors uniform."""
    def evaluate(planes, legal):
        found = np.array([values[p.tobytes()] for p in planes], dtype=np.float32)
        return uniform_evaluator(planes, legal)[0], found
    return evaluate


def chosen_moves(game, states, simulations, evaluator, **config) -> np.ndarray:
    """The most visited move of one search from each of `states`, all searched together."""
    search = BatchedSearch(game, len(states), simulations, search_settings(**config))
    for b, state in enumerate(states):
        search.set_root(b, state)
    search.run(evaluator)
    return search.choose(search.visit_counts(), 0.0)


def test_discount_wins_by_the_quickest_line():
    """With exact but distance-blind leaf values (+1 for any won position), plain PUCT cannot
    tell a quick win from a slow one; with a discount every choice is a quickest win."""
    game, start, _, score, by_planes = solve_connect4_4x4()
    cases = quick_and_slow_wins(game, start, score)
    assert len(cases) > 100

    quickest = {}
    for discount in (1.0, 0.9):
        actions = chosen_moves(game, [state for state, _ in cases], 800,
                               values_by_planes(by_planes), discount=discount)
        assert all(scores[a] > 0 for a, (_, scores) in zip(actions, cases))  # never drops a win
        quickest[discount] = sum(scores[a] == max(scores.values())
                                 for a, (_, scores) in zip(actions, cases))
    assert quickest[0.9] == len(cases)
    assert quickest[1.0] < 0.9 * len(cases)  # the positions do tell the two apart


@pytest.mark.parametrize("name,params", [("connect4", {"rows": 6, "cols": 7}), ("othello", {})])
def test_rollout_share_mixes_one_playout_into_each_leaf(name, params):
    """A search of one simulation values its root at (1 - w) * the network's value + w * the
    outcome of the random playout its generator draws, for the side to move; w = 0 plays none."""
    game = make_game(name, **params)
    rng = np.random.default_rng(3)
    network_value = 0.4

    def constant(planes, legal):
        return uniform_evaluator(planes, legal)[0], np.full(len(planes), network_value, np.float32)

    outcomes = set()
    for seed in range(12):
        state = game.new_state()
        for _ in range(int(rng.integers(0, 12))):
            game.play(state, int(rng.choice(game.legal_list(state))))
        playout = state.copy()
        final = game.random_playout(playout, make_rng(seed))
        outcome = {FIRST_WON: 1.0, SECOND_WON: -1.0}.get(final, 0.0)
        outcome = outcome if game.to_move(state) == 0 else -outcome
        outcomes.add(outcome)
        for share in (0.0, 0.3, 1.0):
            search = BatchedSearch(game, 1, 1, search_settings(rollout_share=share), seed=seed)
            search.set_root(0, state)
            search.run(constant)
            expected = (1 - share) * network_value + share * outcome
            assert search.root_values()[0] == pytest.approx(expected, abs=1e-6)
    assert len(outcomes) >= 2  # the playouts do differ


@pytest.mark.parametrize("name", ["connect6", "othello"])
@pytest.mark.parametrize("discount", [1.0, 0.9])
def test_backup_sign_follows_the_side_to_move(name, discount, othello_pass_win, position):
    """Every leaf evaluates to +0.6 for its own side to move. Each node's stored value must be
    the sum of what its subtree saw (times the discount per ply up), turned to the first
    player's view by the side to move at each evaluated node, not by counting plies: a
    Connect6 pair keeps the side, and an Othello pass is an ordinary action."""
    if name == "connect6":
        game, state = position("connect6", {"size": 7}, ["D4"])  # White places two stones
    else:
        game, state, _ = othello_pass_win()  # the winning lines go through a pass
    leaf_value = 0.6

    def constant(planes, legal):
        return uniform_evaluator(planes, legal)[0], np.full(len(planes), leaf_value, np.float32)

    search = BatchedSearch(game, 1, 200, search_settings(discount=discount))
    search.set_root(0, state)
    search.run(constant)
    nodes, value0 = search.tree.nodes[0], search.tree.value0[0]
    used = search.tree.trees[0, NODES_USED]
    own = np.zeros(used)  # what each node itself contributed, first player's view
    for n in range(used):
        if nodes[n, STATUS] != ONGOING:
            own[n] = nodes[n, VISITS] * {1: 1.0, 2: -1.0, 3: 0.0}[nodes[n, STATUS]]
        else:
            own[n] = leaf_value if nodes[n, TO_PLAY] == 0 else -leaf_value
    expected = own.copy()
    for n in range(used - 1, 0, -1):  # children are created after their parents
        expected[nodes[n, PARENT]] += discount * expected[n]
    np.testing.assert_allclose(value0[:used], expected, atol=1e-9)
    children = search.tree.edge_child[0]  # each node below the root is one edge's child
    in_actions = [search.tree.edge_action[0, np.flatnonzero(children == n)[0]] for n in range(1, used)]
    if name == "connect6":
        same_side = [n for n in range(1, used) if nodes[n, TO_PLAY] == nodes[nodes[n, PARENT], TO_PLAY]]
        assert same_side  # the pair was really searched
    else:
        assert game.num_actions - 1 in in_actions  # a pass was really searched


@pytest.mark.parametrize("name,params", [("connect4", {"rows": 6, "cols": 7}),
                                         ("connect6", {"size": 8}),
                                         ("othello", {"rules": "standard"})])
def test_batched_equals_single_tree(name, params):
    game = make_game(name, **params)
    rng = np.random.default_rng(3)
    states = []
    for length in (0, 3, 6):
        state = game.new_state()
        for _ in range(length):
            game.play(state, int(rng.choice(game.legal_list(state))))
        states.append(state)
    batched = BatchedSearch(game, len(states), 120, search_settings())
    for b, state in enumerate(states):
        batched.set_root(b, state)
    batched.run(hashed_evaluator)
    together = batched.visit_counts()
    for b, state in enumerate(states):
        single = BatchedSearch(game, 1, 120, search_settings())
        single.set_root(0, state)
        single.run(hashed_evaluator)
        np.testing.assert_array_equal(single.visit_counts()[0], together[b])


@pytest.mark.parametrize("name,params", [("connect4", {"rows": 6, "cols": 7}),
                                         ("connect6", {"size": 6}),
                                         ("othello", {"rules": "course"})])
def test_long_games_with_tiny_arenas_and_reuse(name, params):
    game = make_game(name, **params)
    config = search_settings(arena_factor=1.3)
    search = BatchedSearch(game, 4, 24, config, seed=1)
    states = [game.new_state() for _ in range(4)]
    for b, state in enumerate(states):
        search.set_root(b, state)
    reused = 0
    while search.active.any():
        search.run(hashed_evaluator, add_noise=True)
        visits = search.visit_counts()
        actions = search.choose(visits, 1.0)
        for b in np.flatnonzero(search.active):
            assert visits[b].sum() >= 24 - 1  # every search got its simulations
            assert game.legal_mask(states[b])[actions[b]]
            game.play(states[b], int(actions[b]))
            search.advance(b, int(actions[b]))
            np.testing.assert_array_equal(search.tree.root_states[b], states[b])
            reused += search.tree.nodes[b, search.tree.trees[b, 0], VISITS] > 0
    assert all(game.status(s) != ONGOING for s in states)
    assert reused > 0


def test_per_tree_budgets_and_noise_mask():
    """Playout cap randomisation's search: each tree runs exactly its own budget, and noise
    reaches only the roots the mask names."""
    game = make_game("othello", rules="standard")
    search = BatchedSearch(game, 3, 50, search_settings(dirichlet_epsilon=0.5), seed=2)
    for b in range(3):
        search.set_root(b, game.new_state())
    search.run(hashed_evaluator, add_noise=np.array([True, False, False]),
               simulations=np.array([50, 7, 1]))
    np.testing.assert_array_equal(search.tree.nodes[:, 0, VISITS], [50, 7, 1])
    clean = BatchedSearch(game, 1, 50, search_settings())
    clean.set_root(0, game.new_state())
    clean.run(hashed_evaluator, simulations=np.array([7]))
    np.testing.assert_array_equal(search.visit_counts()[1], clean.visit_counts()[0])
    root_priors = search.tree.edge_prior[:, :4]  # the four opening moves
    assert not np.allclose(root_priors[0], root_priors[1])
    np.testing.assert_allclose(root_priors[1], root_priors[2])
    with pytest.raises(ValueError, match="from 1 to 50"):
        search.run(hashed_evaluator, simulations=np.array([51, 1, 1]))


def test_choose_respects_temperature():
    game = make_game("connect4", rows=6, cols=7)
    search = BatchedSearch(game, 1, 4, search_settings())
    visits = np.array([[0, 10, 0, 30, 0, 0, 0]], dtype=np.float32)
    assert search.choose(visits, 0.0)[0] == 3
    picks = [search.choose(visits, 1.0)[0] for _ in range(400)]
    assert set(picks) == {1, 3}
    assert 0.15 < picks.count(1) / 400 < 0.35
