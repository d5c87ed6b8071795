"""Pure MCTS: classic UCT with uniformly random rollouts, the strength yardstick.

Strength level = playouts (iterations) per move. Each iteration selects by
W/n + C * sqrt(2 ln N / n) with rewards in [0, 1] (win 1, draw 1/2, loss 0), expands one
untried action, plays one random game to the end from there and backs the result up. The
most visited root action is played. Many independent searches (one per concurrent game) run
in one call, so evaluation matches against many games at once pay Python once per move.

Storage per search tree: node arrays, and a block of edges per node created at the node's
first expansion; edges [tried, num_edges) are still untried and are swapped to the front as
they are expanded. A child's statistics live on the edge that leads to it (visits, and the
reward sum from the view of the side that chose the edge), and so do the two terms of its
UCB1 score, mean reward and 1/sqrt(visits), refreshed at backup and stored side by side in
float32 (reward sums are multiples of 1/2, exact in float32 up to 2**23 visits). Selecting
among a node's children then reads one contiguous block with no division, square root or
view flip: on games with rollouts as cheap as Connect-4's, selection would otherwise cost as
much as the rollout (cached terms: 1.24x iterations/s on Connect-4 6x7, 1.32x on Connect6
10x10; float32 side by side: 1.10x and 1.07x more; A/B in one process).
"""
from __future__ import annotations

import numpy as np

from games.arrays import copy_into
from games.rng import make_rng, rand_below
from games.specialize import specialize

# nodes[n, :] fields
EDGE_START, NUM_EDGES, TRIED, TO_PLAY, STATUS = range(5)
NODE_FIELDS = 5


def reward_for_first(status_code):
    if status_code == 1:
        return 1.0
    if status_code == 2:
        return 0.0
    return 0.5


def create_node(nodes, n, state):
    nodes[n, EDGE_START] = -1
    nodes[n, NUM_EDGES] = 0
    nodes[n, TRIED] = 0
    nodes[n, TO_PLAY] = to_move(state)  # noqa: F821
    nodes[n, STATUS] = status(state)  # noqa: F821


def open_edges(nodes, edge_action, edges_used, n, state, mask):
    """Give node n one untried edge per legal action; returns the new edges_used."""
    count = legal_actions(state, mask)  # noqa: F821
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            edge_action[edges_used + k] = a
            k += 1
    nodes[n, EDGE_START] = edges_used
    nodes[n, NUM_EDGES] = count
    return edges_used + count


def uct_edge(start, tried, scale, edge_terms, scores):
    """The tried edge in [start, start + tried) with the highest UCB1 score
    mean + scale / sqrt(n), where scale is C * sqrt(2 ln N_parent). Scores are computed in
    one loop with no branch (several children per instruction) and compared in a second."""
    for k in range(tried):
        scores[k] = edge_terms[start + k, 0] + scale * edge_terms[start + k, 1]
    best = 0
    for k in range(1, tried):
        if scores[k] > scores[best]:
            best = k
    return start + best


def search_one(root_state, iterations, scale_by_visits, rng, nodes, edge_action, edge_child,
               edge_visits, edge_reward, edge_terms, path, scores, state, mask,
               visits_out):
    """Run `iterations` UCT iterations from root_state; write the root's visit counts by
    action into visits_out and return the root's mean reward for its side to move."""
    create_node(nodes, 0, root_state)
    used = 1
    edges_used = 0
    for i in range(iterations):
        copy_into(state, root_state)
        n = 0
        n_visits = i  # visits of n before this iteration
        depth = 0
        # Select through fully expanded nodes; path holds the edges taken.
        while nodes[n, STATUS] == 0:
            if nodes[n, EDGE_START] < 0:
                edges_used = open_edges(nodes, edge_action, edges_used, n, state, mask)
            tried = nodes[n, TRIED]
            if tried < nodes[n, NUM_EDGES]:
                break
            e = uct_edge(nodes[n, EDGE_START], tried, scale_by_visits[n_visits], edge_terms,
                         scores)
            play(state, edge_action[e])  # noqa: F821
            path[depth] = e
            depth += 1
            n_visits = edge_visits[e]
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
            create_node(nodes, used, state)
            edge_child[slot] = used
            edge_visits[slot] = 0
            edge_reward[slot] = 0.0
            used += 1
            path[depth] = slot
            depth += 1
            n = edge_child[slot]
        # Roll out and back up: each edge scores for the side to move above it.
        final = nodes[n, STATUS]
        if final == 0:
            final = random_playout(state, rng)  # noqa: F821
        reward0 = reward_for_first(final)
        above = 0
        for d in range(depth):
            e = path[d]
            visits = edge_visits[e] + 1
            edge_visits[e] = visits
            edge_reward[e] += reward0 if nodes[above, TO_PLAY] == 0 else 1.0 - reward0
            # Selection reads each edge several times per backup: keep its terms ready.
            edge_terms[e, 0] = edge_reward[e] / visits
            edge_terms[e, 1] = 1.0 / np.sqrt(np.float32(visits))
            above = edge_child[e]
    # Every iteration goes through one root edge, and root edges score for the root's side.
    visits_out[:] = 0
    reward = 0.0
    start = nodes[0, EDGE_START]
    if start >= 0:
        for e in range(start, start + nodes[0, TRIED]):
            visits_out[edge_action[e]] = edge_visits[e]
            reward += edge_reward[e]
    return reward / max(iterations, 1)


def search_many(root_states, active, iterations, scale_by_visits, rng, nodes, edge_action,
                edge_child, edge_visits, edge_reward, edge_terms, path, scores, state,
                mask, visits_out, values_out):
    for b in range(root_states.shape[0]):
        if active[b]:
            values_out[b] = search_one(root_states[b], iterations, scale_by_visits, rng, nodes,
                                       edge_action, edge_child, edge_visits, edge_reward,
                                       edge_terms, path, scores, state, mask,
                                       visits_out[b])


_TEMPLATES = [reward_for_first, create_node, open_edges, uct_edge, search_one, search_many]


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
        self.seed = seed
        self.reseed()
        capacity = self.iterations + 1
        self.nodes = np.zeros((capacity, NODE_FIELDS), dtype=np.int32)
        # Every node can open one edge per legal action at most.
        edges = capacity * game.num_actions
        self.edge_action = np.zeros(edges, dtype=np.int32)
        self.edge_child = np.zeros(edges, dtype=np.int32)
        self.edge_visits = np.zeros(edges, dtype=np.int32)
        self.edge_reward = np.zeros(edges, dtype=np.float32)
        self.edge_terms = np.zeros((edges, 2), dtype=np.float32)  # reward/visits, 1/sqrt(visits)
        self.path = np.zeros(capacity, dtype=np.int32)  # a tree of n nodes is < n deep
        self.scores = np.zeros(game.num_actions, dtype=np.float32)
        # C * sqrt(2 ln N) for every parent visit count N a search can reach.
        visits = np.arange(capacity, dtype=np.float64)
        self.scale_by_visits = (self.exploration * np.sqrt(2.0 * np.log(np.maximum(visits, 1)))).astype(np.float32)
        self.state = np.zeros(game.state_size, dtype=game.state_dtype)
        self.mask = np.zeros(game.num_actions, dtype=np.bool_)

    def reseed(self) -> None:
        """Restart the rollout and tie-breaking streams from the seed."""
        self.rng_state = make_rng(self.seed)
        self.choice_rng = np.random.default_rng(self.seed)

    def search(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Visit counts [B, A] and root values [B] (mean reward in [0, 1] for the side to
        move) for each ongoing position in states [B, state_size]."""
        states = np.atleast_2d(states)
        active = np.array([self.game.status(s) == 0 for s in states], dtype=np.bool_)
        visits = np.zeros((len(states), self.game.num_actions), dtype=np.int64)
        values = np.full(len(states), 0.5)
        self.kernels.search_many(states, active, self.iterations, self.scale_by_visits,
                                 self.rng_state, self.nodes, self.edge_action, self.edge_child,
                                 self.edge_visits, self.edge_reward, self.edge_terms, self.path, self.scores,
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
