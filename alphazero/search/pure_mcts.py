"""Pure MCTS: classic UCT with uniformly random rollouts, the strength yardstick.

Strength level = playouts (iterations) per move. Each iteration selects by
W/n + C * sqrt(2 ln N / n) with rewards in [0, 1] (win 1, draw 1/2, loss 0), expands one
untried action, plays one random game to the end from there and backs the result up. The
most visited root action is played. Many independent searches (one per concurrent game) run
in one call, so evaluation matches against many games at once pay Python once per move.

Storage per search tree (`Arena`, field by field): flat arrays indexed with constant strides
(stored numbers are masked non-negative, which removes Numba's negative-index wraparound).
An edge is the child node it leads to, and a node's children are consecutive rows. Each node
keeps its UCB1 terms, refreshed at backup from tables (`Tables`), so selection reads one
contiguous block per node with no division, square root or view flip, and the child it picks
is a row number. Positions of nodes near the root are saved: an iteration plays no move until
it leaves the saved nodes, then restores the deepest saved position on its path and plays
the moves below it as it selects them.
Selection compares integer keys (a non-negative float32 score orders as its bits, above the
complement of the child's offset): one compare and move per child, and the first of equal
scores wins as in a left-to-right pass. Visit counts and values equal those of the previous
version (float compares, divisions) on every position compared: 9 boards of the four games,
3 positions each, at 300 and 20,000 iterations.
The backup walks the path recorded during selection (children and the sides that chose
them), so it reads no parent records.

Why: on Connect-4 a random game takes under 200 ns and the tree's own work used to weigh
more. Iterations/s on Connect-4 6x7 (20,000 per search), A/B in one process on the project's
2-core machine (two runs), each step added to the one before, against the previous layout
(one record per edge in five arrays, a division and square root per level in the backup,
selection and node set-up as calls, moves replayed from the root): tables of 1/n and
1/sqrt(n) 1.01x, the sides on the path 1.02-1.03x, flat arrays with selection and expansion
inlined into the search loop 1.36x, edges as consecutive child rows 1.42-1.44x, integer
keys 1.46-1.48x, saved positions 1.56-1.57x (0.39 -> 0.61-0.62 of the core's random
playouts/s). Not kept: one 32-byte record per edge (1.36x at its step against 1.32-1.33x for
separate arrays; the child rows beat both), a vectorized key loop on few children (0.95x on
Connect-4; it runs above VECTOR_CHILDREN children: 1.07x on Connect6 10x10), branches
instead of keys (0.84x), saved positions deeper than 2 plies, prefetching the children's
records, inlining the game's play, fused multiply-adds (1.01x, and they change results).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from alphazero.search.python_rules import PythonRulesPureMCTS
from games.core.arrays import copy_into
from games.core.rng import make_rng, rand_below
from games.core.specialize import specialize

# nodes[n, :] fields; TO_PLAY's bits above the lowest (the side to move) number the node's
# saved position (0: none); REWARD holds float32 bits.
EDGE_START, NUM_EDGES, TRIED, TO_PLAY, STATUS, VISITS, REWARD, ACTION = range(8)
NODE_FIELDS = 8
SAVE_DEPTH = 2
SAVE_BYTES = 1 << 16
VECTOR_CHILDREN = 16  # above this many children the argmax runs vectorized


class Tables(NamedTuple):
    """The UCB1 terms by visit count n, from 0 to the iterations (n = 0 is read as 1), the
    last two rounded as the division and float32 square root they replace were.

    scale_by_visits  float32 [iterations + 1]: C * sqrt(2 ln n), a parent's exploration factor
    inverse          float64 [iterations + 1]: 1 / n
    inverse_sqrt     float32 [iterations + 1]: 1 / sqrt(n)
    """
    scale_by_visits: np.ndarray
    inverse: np.ndarray
    inverse_sqrt: np.ndarray


class Arena(NamedTuple):
    """One search tree's storage, reused by every search; R node records (the root, and one
    child per legal action for each node opened: at most one an iteration).

    nodes    int32 [R * NODE_FIELDS]: node records of 8 int32 (half a cache line): EDGE_START
             (its first child's row; -1 until first selected, when it gets one child per
             legal action), NUM_EDGES, TRIED (its first TRIED children are expanded: an untried
             action is swapped to the front as it is expanded), TO_PLAY (the side to move in
             the lowest bit, the number of its saved position above it; 0: none), STATUS
             (the game's status code), VISITS, REWARD (float32 bits: the reward sum from the
             view of the side that chose the node, multiples of 1/2, exact up to 2**23
             visits), ACTION (the action that leads to it)
    rewards  float32 [R * NODE_FIELDS]: the same memory as `nodes`, read at REWARD
    terms    float32 [2 * R]: per node its UCB1 mean reward and 1 / sqrt(visits)
    path     int32 [2 * (iterations + 1)]: an iteration's path, per level the child taken and
             the side that took it (a tree of n nodes is less than n deep)
    state    game.state_dtype [state_size]: the position an iteration plays on
    mask     bool [num_actions]: a node's legal actions as it is opened
    saved    game.state_dtype [slots * state_size]: the saved positions of nodes at depth
             <= SAVE_DEPTH, in slots of state_size (slot 0 unused; at most SAVE_BYTES)
    """
    nodes: np.ndarray
    rewards: np.ndarray
    terms: np.ndarray
    path: np.ndarray
    state: np.ndarray
    mask: np.ndarray
    saved: np.ndarray


@intrinsic
def _float_bits(typingctx, value):
    """The bits of a float32 as an int32 (a register move, no memory round trip)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.int32(types.float32), codegen


@njit(cache=True, inline="always")
def _row(value):
    """A stored node number as a value LLVM can see is non-negative: that removes Numba's
    negative-index wraparound from every access it indexes."""
    return value & 0x7FFFFFFF


def search_one(root_state, iterations, tables, arena, rng, visits_out):
    """Run `iterations` UCT iterations from root_state (`rng` a games.core.rng state); write
    the root's visit counts by action into visits_out and return the root's mean reward for
    its side to move."""
    scale_by_visits, inverse, inverse_sqrt = tables
    nodes, rewards, terms, path, state, mask, saved = arena
    for f in range(NODE_FIELDS):
        nodes[f] = 0
    nodes[EDGE_START] = -1
    nodes[TO_PLAY] = to_move(root_state)  # noqa: F821
    nodes[STATUS] = status(root_state)  # noqa: F821
    used = 1
    size = state.shape[0]
    slots = saved.shape[0] // size
    next_slot = 1
    for i in range(iterations):
        row = 0
        depth = 0
        # `state` is the position at the current node once `live`; until then the nodes on
        # the path have saved positions, the deepest in `base` (0: the root).
        base = 0
        live = False
        # Select through fully expanded nodes; path holds the children taken and the side
        # that took each.
        while nodes[row + STATUS] == 0:
            start = nodes[row + EDGE_START]
            tried = nodes[row + TRIED]
            if start < 0 or tried < nodes[row + NUM_EDGES]:
                break
            start = _row(start)
            scale = scale_by_visits[_row(nodes[row + VISITS])]
            # The highest key wins: a score's bits (a float32 >= 0 orders as its bits)
            # above the complement of the child's offset, so the first of equal scores wins.
            top = (np.int64(_float_bits(terms[2 * start] + scale * terms[2 * start + 1])) << 32) | 0xFFFFFFFF
            if tried > VECTOR_CHILDREN:
                for k in range(1, tried):
                    bits = np.int64(_float_bits(terms[2 * (start + k)] + scale * terms[2 * (start + k) + 1]))
                    top = max(top, (bits << 32) | (0xFFFFFFFF - k))
            else:
                k = 1
                while k < tried:
                    bits = np.int64(_float_bits(terms[2 * (start + k)] + scale * terms[2 * (start + k) + 1]))
                    if bits < 0:
                        # Never taken (scores are >= 0): a second exit keeps LLVM from
                        # vectorizing this loop, which costs more than it saves on few children.
                        break
                    top = max(top, (bits << 32) | (0xFFFFFFFF - k))
                    k += 1
            child = _row(start + 0xFFFFFFFF - (top & 0xFFFFFFFF))
            path[2 * depth] = child
            path[2 * depth + 1] = nodes[row + TO_PLAY] & 1
            depth += 1
            row = child * NODE_FIELDS
            if live:
                play(state, nodes[row + ACTION])  # noqa: F821
            else:
                slot = nodes[row + TO_PLAY] >> 1
                if slot != 0:
                    base = slot
                else:
                    # Restore `base` (written out here and below: as a helper inlined by
                    # Numba it cost 10% of the iterations/s, A/B on Connect-4).
                    if base == 0:
                        copy_into(state, root_state)
                    else:
                        offset = _row(base * size)
                        for j in range(size):
                            state[j] = saved[offset + j]
                    play(state, nodes[row + ACTION])  # noqa: F821
                    live = True
        final = nodes[row + STATUS]
        if final == 0:
            if not live:
                if base == 0:
                    copy_into(state, root_state)
                else:
                    offset = _row(base * size)
                    for j in range(size):
                        state[j] = saved[offset + j]
            if nodes[row + EDGE_START] < 0:
                # First visit through this node: give it one child per legal action.
                count = legal_actions(state, mask)  # noqa: F821
                first = used
                for a in range(mask.shape[0]):
                    if mask[a]:
                        child = used * NODE_FIELDS
                        nodes[child + EDGE_START] = -1
                        nodes[child + NUM_EDGES] = 0
                        nodes[child + TRIED] = 0
                        nodes[child + TO_PLAY] = 0
                        nodes[child + STATUS] = 0
                        nodes[child + VISITS] = 0
                        nodes[child + REWARD] = 0
                        nodes[child + ACTION] = a
                        used += 1
                nodes[row + EDGE_START] = first
                nodes[row + NUM_EDGES] = count
            # Expand one untried action, chosen at random.
            start = _row(nodes[row + EDGE_START])
            tried = nodes[row + TRIED]
            pick = _row(start + tried + rand_below(rng, nodes[row + NUM_EDGES] - tried)) * NODE_FIELDS
            node = _row(start + tried)
            child = node * NODE_FIELDS
            action = nodes[pick + ACTION]
            nodes[pick + ACTION] = nodes[child + ACTION]
            nodes[child + ACTION] = action
            nodes[row + TRIED] = tried + 1
            play(state, action)  # noqa: F821
            nodes[child + TO_PLAY] = to_move(state)  # noqa: F821
            nodes[child + STATUS] = status(state)  # noqa: F821
            path[2 * depth] = node
            path[2 * depth + 1] = nodes[row + TO_PLAY] & 1
            depth += 1
            final = nodes[child + STATUS]
            if final == 0:
                if depth <= SAVE_DEPTH and next_slot < slots:
                    offset = _row(next_slot * size)
                    for j in range(size):
                        saved[offset + j] = state[j]
                    nodes[child + TO_PLAY] |= next_slot << 1
                    next_slot += 1
                # Roll out.
                final = random_playout(state, rng)  # noqa: F821
        # Back up: each child scores for the side that chose it.
        reward0 = np.float32(1.0) if final == 1 else (np.float32(0.0) if final == 2 else np.float32(0.5))
        flip = np.float32(1.0) - np.float32(2.0) * reward0
        nodes[VISITS] = i + 1
        for d in range(depth):
            node = _row(path[2 * d])
            row = node * NODE_FIELDS
            visits = _row(nodes[row + VISITS] + 1)
            nodes[row + VISITS] = visits
            reward = rewards[row + REWARD] + (reward0 + np.float32(path[2 * d + 1]) * flip)
            rewards[row + REWARD] = reward
            terms[2 * node] = reward * inverse[visits]
            terms[2 * node + 1] = inverse_sqrt[visits]
    # Every iteration goes through one root child, and those score for the root's side.
    visits_out[:] = 0
    reward = 0.0
    start = nodes[EDGE_START]
    if start >= 0:
        for node in range(start, start + nodes[TRIED]):
            visits_out[nodes[node * NODE_FIELDS + ACTION]] = nodes[node * NODE_FIELDS + VISITS]
            reward += rewards[node * NODE_FIELDS + REWARD]
    return reward / max(iterations, 1)


def search_many(root_states, active, iterations, tables, arena, rng, visits_out, values_out):
    """search_one from each active row of root_states, into the rows of visits_out and
    values_out."""
    for b in range(root_states.shape[0]):
        if active[b]:
            values_out[b] = search_one(root_states[b], iterations, tables, arena, rng,
                                       visits_out[b])


_TEMPLATES = [search_one, search_many]


class PureMCTS:
    """UCT with random rollouts at a fixed number of iterations per move, for many positions
    at once (one fresh tree per position and move: the yardstick has no memory)."""

    def __init__(self, game, iterations: int, exploration: float = 1 / np.sqrt(2), seed: int = 0):
        if iterations < 1:
            raise ValueError("pure MCTS needs at least one playout per move.")
        if not exploration >= 0:
            raise ValueError(f"pure MCTS needs an exploration constant >= 0, not {exploration}.")
        self.game = game
        self.iterations = int(iterations)
        self.exploration = float(exploration)
        self.kernels = (specialize(game, _TEMPLATES) if game.kernels is not None
                        else PythonRulesPureMCTS(game))  # rules in Python: UCT in Python
        self.seed = seed
        self.reseed()
        capacity = self.iterations + 1
        # The kernels' Arena, kept here in rows (nodes [R, NODE_FIELDS], edge_terms [R, 2],
        # saved [slots, state_size]) for the tests to read.
        self.nodes = np.zeros((1 + capacity * game.num_actions, NODE_FIELDS), dtype=np.int32)
        self.edge_terms = np.zeros((len(self.nodes), 2), dtype=np.float32)
        self.path = np.zeros(2 * capacity, dtype=np.int32)
        self.state = np.zeros(game.state_size, dtype=game.state_dtype)
        self.mask = np.zeros(game.num_actions, dtype=np.bool_)
        slots = max(2, min(capacity, SAVE_BYTES // self.state.nbytes))  # slot 0 is unused
        self.saved = np.zeros((slots, game.state_size), dtype=game.state_dtype)
        # (the search's results are those of the arithmetic the tables replace)
        visits = np.maximum(np.arange(capacity + 1, dtype=np.float64), 1)
        self.tables = Tables(
            scale_by_visits=(self.exploration * np.sqrt(2.0 * np.log(visits))).astype(np.float32),
            inverse=1.0 / visits,
            inverse_sqrt=(1.0 / np.sqrt(visits.astype(np.float32)).astype(np.float64)).astype(np.float32))

    # Inspection views (tests): an edge is the node it leads to.
    @property
    def edge_child(self) -> np.ndarray:
        return np.arange(len(self.nodes))

    @property
    def edge_visits(self) -> np.ndarray:
        return self.nodes[:, VISITS]

    @property
    def edge_reward(self) -> np.ndarray:
        return self.nodes.view(np.float32)[:, REWARD]

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
        nodes = self.nodes.reshape(-1)
        arena = Arena(nodes, nodes.view(np.float32), self.edge_terms.reshape(-1), self.path,
                      self.state, self.mask, self.saved.reshape(-1))
        self.kernels.search_many(states, active, self.iterations, self.tables, arena,
                                 self.rng_state, visits, values)
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
