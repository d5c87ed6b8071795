"""Pure MCTS: classic UCT with uniformly random rollouts, the strength yardstick.

Strength level = playouts (iterations) per move. Each iteration selects by
W/n + C * sqrt(2 ln N / n) with rewards in [0, 1] (win 1, draw 1/2, loss 0), expands one
untried action, plays one random game to the end from there and backs the result up. The
most visited root action is played. Many independent searches (one per concurrent game) run
in one call, so evaluation matches against many games at once pay Python once per move.

Storage per search tree, as in alphazero.mcts: node arrays and a block of edges per node
created at the node's first expansion; edges [tried, num_edges) are still untried and are
swapped to the front as they are expanded. Rewards are stored from the first player's view.
"""
from __future__ import annotations

import numpy as np

from games.arrays import copy_into
from games.rng import make_rng, rand_below
from games.specialize import specialize

# nodes[n, :] fields
VISITS, PARENT, EDGE_START, NUM_EDGES, TRIED, TO_PLAY, STATUS = range(7)
NODE_FIELDS = 7


def reward_for_first(status_code):
    if status_code == 1:
        return 1.0
    if status_code == 2:
        return 0.0
    return 0.5


def create_node(nodes, wins0, used, parent, state):
    n = used
    nodes[n, VISITS] = 0
    nodes[n, PARENT] = parent
    nodes[n, EDGE_START] = -1
    nodes[n, NUM_EDGES] = 0
    nodes[n, TRIED] = 0
    nodes[n, TO_PLAY] = to_move(state)  # noqa: F821
    nodes[n, STATUS] = status(state)  # noqa: F821
    wins0[n] = 0.0
    return n


def open_edges(nodes, edge_action, edge_child, edges_used, n, state, mask):
    """Give node n one untried edge per legal action; returns the new edges_used."""
    count = legal_actions(state, mask)  # noqa: F821
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            edge_action[edges_used + k] = a
            edge_child[edges_used + k] = -1
            k += 1
    nodes[n, EDGE_START] = edges_used
    nodes[n, NUM_EDGES] = count
    return edges_used + count


def uct_child(nodes, wins0, edge_child, n, exploration):
    """The tried edge of n with the highest UCB1 score from the view of n's side to move."""
    log_parent = 2.0 * np.log(nodes[n, VISITS])
    first = nodes[n, TO_PLAY] == 0
    start = nodes[n, EDGE_START]
    best_edge = start
    best_score = -1.0
    for e in range(start, start + nodes[n, TRIED]):
        child = edge_child[e]
        visits = nodes[child, VISITS]
        mean = wins0[child] / visits
        if not first:
            mean = 1.0 - mean
        score = mean + exploration * np.sqrt(log_parent / visits)
        if score > best_score:
            best_score = score
            best_edge = e
    return best_edge


def search_one(root_state, iterations, exploration, rng, nodes, wins0, edge_action,
               edge_child, state, mask, visits_out):
    """Run `iterations` UCT iterations from root_state; write the root's visit counts by
    action into visits_out and return the root's mean reward for its side to move."""
    used = 1
    create_node(nodes, wins0, 0, -1, root_state)
    edges_used = 0
    for _ in range(iterations):
        copy_into(state, root_state)
        n = 0
        # Select through fully expanded nodes.
        while nodes[n, STATUS] == 0:
            if nodes[n, EDGE_START] < 0:
                edges_used = open_edges(nodes, edge_action, edge_child, edges_used, n, state, mask)
            if nodes[n, TRIED] < nodes[n, NUM_EDGES]:
                break
            e = uct_child(nodes, wins0, edge_child, n, exploration)
            play(state, edge_action[e])  # noqa: F821
            n = edge_child[e]
        # Expand one untried action, chosen at random.
        if nodes[n, STATUS] == 0:
            start = nodes[n, EDGE_START]
            tried = nodes[n, TRIED]
            pick = start + tried + rand_below(rng, nodes[n, NUM_EDGES] - tried)
            slot = start + tried
            action = edge_action[pick]
            edge_action[pick] = edge_action[slot]
            edge_action[slot] = action
            nodes[n, TRIED] = tried + 1
            play(state, action)  # noqa: F821
            child = create_node(nodes, wins0, used, n, state)
            used += 1
            edge_child[slot] = child
            n = child
        # Roll out and back up.
        final = nodes[n, STATUS]
        if final == 0:
            final = random_playout(state, rng)  # noqa: F821
        reward0 = reward_for_first(final)
        while n >= 0:
            nodes[n, VISITS] += 1
            wins0[n] += reward0
            n = nodes[n, PARENT]
    visits_out[:] = 0
    start = nodes[0, EDGE_START]
    if start >= 0:
        for e in range(start, start + nodes[0, TRIED]):
            visits_out[edge_action[e]] = nodes[edge_child[e], VISITS]
    mean0 = wins0[0] / max(nodes[0, VISITS], 1)
    return mean0 if nodes[0, TO_PLAY] == 0 else 1.0 - mean0


def search_many(root_states, active, iterations, exploration, rng, nodes, wins0, edge_action,
                edge_child, state, mask, visits_out, values_out):
    for b in range(root_states.shape[0]):
        if active[b]:
            values_out[b] = search_one(root_states[b], iterations, exploration, rng, nodes, wins0,
                                       edge_action, edge_child, state, mask, visits_out[b])


_TEMPLATES = [reward_for_first, create_node, open_edges, uct_child, search_one, search_many]


class PureMCTS:
    """UCT with random rollouts at a fixed number of iterations per move, for many positions
    at once (one fresh tree per position and move: the yardstick has no memory)."""

    def __init__(self, game, iterations: int, exploration: float = 1 / np.sqrt(2), seed: int = 0):
        if iterations < 1:
            raise ValueError("pure MCTS needs at least one playout per move.")
        self.game = game
        self.iterations = int(iterations)
        self.exploration = float(exploration)
        self.kernels = specialize(game, _TEMPLATES)
        self.rng_state = make_rng(seed)
        self.choice_rng = np.random.default_rng(seed)
        capacity = self.iterations + 1
        self.nodes = np.zeros((capacity, NODE_FIELDS), dtype=np.int32)
        self.wins0 = np.zeros(capacity, dtype=np.float64)
        # Every node can open one edge per legal action at most.
        self.edge_action = np.zeros(capacity * game.num_actions, dtype=np.int32)
        self.edge_child = np.zeros(capacity * game.num_actions, dtype=np.int32)
        self.state = np.zeros(game.state_size, dtype=game.state_dtype)
        self.mask = np.zeros(game.num_actions, dtype=np.bool_)

    def search(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Visit counts [B, A] and root values [B] (mean reward in [0, 1] for the side to
        move) for each ongoing position in states [B, state_size]."""
        states = np.atleast_2d(states)
        active = np.array([self.game.status(s) == 0 for s in states], dtype=np.bool_)
        visits = np.zeros((len(states), self.game.num_actions), dtype=np.int64)
        values = np.full(len(states), 0.5)
        self.kernels.search_many(states, active, self.iterations, self.exploration, self.rng_state,
                                 self.nodes, self.wins0, self.edge_action, self.edge_child,
                                 self.state, self.mask, visits, values)
        return visits, values

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        """The most visited root action for each position (ties broken at random)."""
        return self.best_actions_from(self.search(states)[0])

    def best_actions_from(self, visits: np.ndarray) -> np.ndarray:
        """The most visited action per row of visit counts; -1 where nothing was searched."""
        actions = np.full(len(visits), -1, dtype=np.int64)
        for b, counts in enumerate(visits):
            if counts.max() > 0:
                best = np.flatnonzero(counts == counts.max())
                actions[b] = best[self.choice_rng.integers(len(best))]
        return actions
