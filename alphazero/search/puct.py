"""Batched PUCT search: B trees (one per concurrent game) in preallocated arrays.

Layout (in the spirit of mctx, but with compact edge blocks so a 361-action board does not
cost B * nodes * 361 cells): per tree, an arena of nodes and an arena of edges.

    nodes[b, n, field]   int32: VISITS, PARENT, EDGE_START, NUM_EDGES, TO_PLAY, STATUS,
                         PENDING (waiting for the network), IN_EDGE (edge that leads to n)
    value0[b, n]         float64: sum of backed-up values from the FIRST player's view
    edge_action[b, e], edge_prior[b, e], edge_child[b, e] (-1 until visited)
    trees[b, field]      int32: ROOT, NODES_USED, EDGES_USED, SIMS (completed this search)

Values are stored from the first player's view, and a node's children are scored from the
view of the side to move at that node. So the sign flips exactly when the side to move
changes: a Connect6 pair (same side twice) or an Othello pass needs no special case.

One search step (Python calls it once per step, never per node): `select_leaves` walks every
active tree to a leaf (several per tree with virtual loss if asked), backs up terminal leaves
at once and encodes the others into one batch; the caller evaluates the batch; then
`expand_and_backup` creates the leaves' edges from the priors and backs up the values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.arrays import copy_into
from games.core.rng import make_rng
from games.core.specialize import specialize

# nodes[b, n, :] fields
VISITS, PARENT, EDGE_START, NUM_EDGES, TO_PLAY, STATUS, PENDING, IN_EDGE = range(8)
NODE_FIELDS = 8
# trees[b, :] fields
ROOT, NODES_USED, EDGES_USED, SIMS = range(4)
TREE_FIELDS = 4
# a virtual loss makes a path look lost for the side that chose it, until the real value lands
VIRTUAL_LOSS = 1.0


@dataclass
class SearchConfig:
    c_puct: float = 1.5
    fpu_reduction: float = 0.0  # unvisited child's Q = parent's Q minus this
    dirichlet_alpha: float | None = None  # None: the game's own alpha
    dirichlet_epsilon: float = 0.25
    leaves_per_tree: int = 1  # >1 gathers several leaves per tree per step (virtual loss)
    arena_factor: float = 2.0  # arena holds this many searches' worth of nodes (tree reuse)
    discount: float = 1.0  # a value shrinks by this factor per ply it is backed up: <1 prefers
                           # the quicker of two wins and the slower of two losses
    score_utility: float = 0.0  # w > 0: a finished game is worth (1 - w) * outcome + w * its
                                # piece margin over the board's cells, the value a network
                                # trained with the same w predicts (selfplay), so of two
                                # wins the search prefers the larger (Othello's discs)
    rollout_share: float = 0.0  # w > 0: a leaf is worth (1 - w) * the network's value + w *
                                # the outcome of one random playout from it (AlphaGo's mix),
                                # so the search also sees what random play runs into


# --- Numba templates: the names `play`, `legal_actions`, `status`, `to_move`, `encode` are
# bound to one game's kernels by games.core.specialize. ---------------------------------------

def value_for_first(status_code):
    """The value of a finished game from the first player's view."""
    if status_code == 1:
        return 1.0
    if status_code == 2:
        return -1.0
    return 0.0


def margin_for_first(state, scratch):
    """A position's piece difference, first player's minus second's, as a share of the board's
    cells, read from encode's planes 0 and 1 (the side to move's pieces and the opponent's);
    `scratch` is a free [planes, height, width] row."""
    encode(state, scratch)  # noqa: F821
    margin = 0.0
    for row in range(scratch.shape[1]):
        for col in range(scratch.shape[2]):
            margin += scratch[0, row, col] - scratch[1, row, col]
    margin /= scratch.shape[1] * scratch.shape[2]
    return margin if to_move(state) == 0 else -margin  # noqa: F821


def reset_tree(nodes, value0, trees, b, root_to_play, root_status):
    nodes[b, 0, :] = 0
    nodes[b, 0, PARENT] = -1
    nodes[b, 0, EDGE_START] = -1
    nodes[b, 0, IN_EDGE] = -1
    nodes[b, 0, TO_PLAY] = root_to_play
    nodes[b, 0, STATUS] = root_status
    value0[b, 0] = 0.0
    trees[b, ROOT] = 0
    trees[b, NODES_USED] = 1
    trees[b, EDGES_USED] = 0
    trees[b, SIMS] = 0


def select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct, fpu_reduction):
    """The edge of node n with the highest PUCT score, from the view of the side to move."""
    sign = 1.0 if nodes[b, n, TO_PLAY] == 0 else -1.0
    visits = nodes[b, n, VISITS]
    parent_q = sign * value0[b, n] / visits if visits > 0 else 0.0
    fpu = parent_q - fpu_reduction
    explore = c_puct * np.sqrt(max(visits, 1))
    start = nodes[b, n, EDGE_START]
    best_edge = start
    best_score = -np.inf
    for e in range(start, start + nodes[b, n, NUM_EDGES]):
        child = edge_child[b, e]
        if child < 0:
            q = fpu
            child_visits = 0
        else:
            child_visits = nodes[b, child, VISITS]
            q = sign * value0[b, child] / child_visits if child_visits > 0 else fpu
        score = q + explore * edge_prior[b, e] / (1.0 + child_visits)
        if score > best_score:
            best_score = score
            best_edge = e
    return best_edge


def backup(nodes, value0, b, leaf, v0, undo_virtual, discount):
    """Add v0 (first player's view) to the path from leaf to root, times `discount` per step
    up; optionally replace the virtual loss applied on the way down instead of counting a
    new visit."""
    n = leaf
    while n >= 0:
        if undo_virtual:
            parent = nodes[b, n, PARENT]
            if parent >= 0:
                mover_sign = 1.0 if nodes[b, parent, TO_PLAY] == 0 else -1.0
                value0[b, n] += mover_sign * VIRTUAL_LOSS
        else:
            nodes[b, n, VISITS] += 1
        value0[b, n] += v0
        v0 *= discount
        n = nodes[b, n, PARENT]


def apply_virtual_loss(nodes, value0, b, leaf):
    n = leaf
    while n >= 0:
        nodes[b, n, VISITS] += 1
        parent = nodes[b, n, PARENT]
        if parent >= 0:
            mover_sign = 1.0 if nodes[b, parent, TO_PLAY] == 0 else -1.0
            value0[b, n] -= mover_sign * VIRTUAL_LOSS
        n = parent


def select_leaves(nodes, value0, edge_action, edge_prior, edge_child, trees, root_states,
                  active, target_sims, leaves_per_tree, c_puct, fpu_reduction, discount,
                  score_utility, rollout_share, rng, out_planes, out_masks, leaf_tree, leaf_node,
                  leaf_playout):
    """Walk each active tree that has not yet run its `target_sims[b]` simulations to up to
    `leaves_per_tree` leaves. Terminal leaves are backed up here (their outcome, mixed with
    their margin when score_utility > 0); the others are encoded into out_planes/out_masks,
    and when rollout_share > 0 played out at random (the outcome into leaf_playout, first
    player's view; `rng` a games.core.rng state). Returns the number of leaves to evaluate."""
    count = 0
    state = np.empty(root_states.shape[1], dtype=root_states.dtype)
    for b in range(nodes.shape[0]):
        if not active[b]:
            continue
        for pending in range(leaves_per_tree):
            if trees[b, SIMS] + pending >= target_sims[b]:
                break
            copy_into(state, root_states[b])
            n = trees[b, ROOT]
            collided = False
            while True:
                if nodes[b, n, STATUS] != 0:
                    break  # a finished game: its value is known
                if nodes[b, n, PENDING] == 1:
                    collided = True  # already waiting for the network in this step
                    break
                if nodes[b, n, EDGE_START] < 0:
                    break  # an unexpanded leaf
                e = select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct,
                                 fpu_reduction)
                play(state, edge_action[b, e])  # noqa: F821
                child = edge_child[b, e]
                if child < 0:
                    child = trees[b, NODES_USED]
                    trees[b, NODES_USED] += 1
                    edge_child[b, e] = child
                    nodes[b, child, :] = 0
                    nodes[b, child, PARENT] = n
                    nodes[b, child, EDGE_START] = -1
                    nodes[b, child, IN_EDGE] = e
                    nodes[b, child, TO_PLAY] = to_move(state)  # noqa: F821
                    nodes[b, child, STATUS] = status(state)  # noqa: F821
                    value0[b, child] = 0.0
                n = child
            if collided:
                break
            if nodes[b, n, STATUS] != 0:
                v0 = value_for_first(nodes[b, n, STATUS])
                if score_utility > 0.0:  # out_planes[count] is not yet a leaf's: scratch
                    v0 = ((1.0 - score_utility) * v0
                          + score_utility * margin_for_first(state, out_planes[count]))
                backup(nodes, value0, b, n, v0, False, discount)
                trees[b, SIMS] += 1
                continue
            nodes[b, n, PENDING] = 1
            apply_virtual_loss(nodes, value0, b, n)
            legal_actions(state, out_masks[count])  # noqa: F821
            encode(state, out_planes[count])  # noqa: F821
            if rollout_share > 0.0:  # the walk is done with `state`: play it out in place
                leaf_playout[count] = value_for_first(random_playout(state, rng))  # noqa: F821
            leaf_tree[count] = b
            leaf_node[count] = n
            count += 1
    return count


def expand_and_backup(nodes, value0, edge_action, edge_prior, edge_child, trees,
                      masks, priors, values, leaf_tree, leaf_node, count, discount,
                      rollout_share, leaf_playout):
    """Give each evaluated leaf its edges (priors renormalised over legal actions) and back
    up its value (from the view of the side to move at the leaf), mixed with its random
    playout's outcome when rollout_share > 0."""
    for i in range(count):
        b = leaf_tree[i]
        n = leaf_node[i]
        start = trees[b, EDGES_USED]
        total = 0.0
        k = 0
        for a in range(masks.shape[1]):
            if masks[i, a]:
                edge_action[b, start + k] = a
                edge_prior[b, start + k] = priors[i, a]
                edge_child[b, start + k] = -1
                total += priors[i, a]
                k += 1
        for e in range(start, start + k):
            edge_prior[b, e] = edge_prior[b, e] / total if total > 0 else 1.0 / k
        trees[b, EDGES_USED] += k
        nodes[b, n, EDGE_START] = start
        nodes[b, n, NUM_EDGES] = k
        nodes[b, n, PENDING] = 0
        v0 = values[i] if nodes[b, n, TO_PLAY] == 0 else -values[i]
        if rollout_share > 0.0:
            v0 = (1.0 - rollout_share) * v0 + rollout_share * leaf_playout[i]
        backup(nodes, value0, b, n, v0, True, discount)
        trees[b, SIMS] += 1


def root_visits(nodes, edge_action, edge_child, trees, out):
    """Visit counts of each root's children, by action, into out[b, A]."""
    out[:] = 0.0
    for b in range(nodes.shape[0]):
        root = trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if start < 0:
            continue
        for e in range(start, start + nodes[b, root, NUM_EDGES]):
            child = edge_child[b, e]
            if child >= 0:
                out[b, edge_action[b, e]] = nodes[b, child, VISITS]


def mix_root_noise(nodes, edge_action, edge_prior, trees, active, noise, epsilon):
    """Mix Dirichlet noise into each active root's priors; noise[b, a] are Gamma(alpha)
    draws, normalised here over the root's legal actions (a Dirichlet on that set)."""
    for b in range(nodes.shape[0]):
        root = trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if not active[b] or start < 0:
            continue
        end = start + nodes[b, root, NUM_EDGES]
        total = 0.0
        for e in range(start, end):
            total += noise[b, edge_action[b, e]]
        if total <= 0.0:
            continue
        for e in range(start, end):
            edge_prior[b, e] = (1 - epsilon) * edge_prior[b, e] + epsilon * noise[b, edge_action[b, e]] / total


def advance_root(nodes, value0, edge_action, edge_child, trees, root_states, b, action):
    """Play `action` in tree b and keep the chosen child's subtree as the new root (or start
    afresh if the child was never visited)."""
    root = trees[b, ROOT]
    play(root_states[b], action)  # noqa: F821
    child = -1
    start = nodes[b, root, EDGE_START]
    if start >= 0:
        for e in range(start, start + nodes[b, root, NUM_EDGES]):
            if edge_action[b, e] == action:
                child = edge_child[b, e]
                break
    if child >= 0:
        nodes[b, child, PARENT] = -1
        trees[b, ROOT] = child
        trees[b, SIMS] = 0
    else:
        reset_tree(nodes, value0, trees, b, to_move(root_states[b]), status(root_states[b]))  # noqa: F821


def reset_trees(nodes, value0, trees, root_states, which):
    for b in range(nodes.shape[0]):
        if which[b]:
            reset_tree(nodes, value0, trees, b, to_move(root_states[b]), status(root_states[b]))  # noqa: F821


def make_room(nodes, value0, edge_action, trees, root_states, active, spare_nodes, spare_edges):
    """Start afresh any active tree whose arena cannot hold one more search: the reused
    subtree is dropped, never overrun."""
    for b in range(nodes.shape[0]):
        if active[b] and (nodes.shape[1] - trees[b, NODES_USED] < spare_nodes
                          or edge_action.shape[1] - trees[b, EDGES_USED] < spare_edges):
            reset_tree(nodes, value0, trees, b, to_move(root_states[b]), status(root_states[b]))  # noqa: F821


_TEMPLATES = [value_for_first, margin_for_first, reset_tree, select_child, backup,
              apply_virtual_loss, select_leaves, expand_and_backup, root_visits, mix_root_noise,
              advance_root, reset_trees, make_room]


class BatchedSearch:
    """PUCT over `num_trees` games at once; `evaluator(planes, legal) -> (priors, values)`
    is called once per search step with every tree's leaves in one batch."""

    def __init__(self, game, num_trees: int, simulations: int, config: SearchConfig | None = None,
                 seed: int = 0):
        if num_trees < 1 or simulations < 1:
            raise ValueError("the search needs at least one tree and one simulation.")
        self.game = game
        self.config = config or SearchConfig()
        self.simulations = simulations
        self.kernels = specialize(game, _TEMPLATES)
        self.rng = np.random.default_rng(seed)
        leaves = self.config.leaves_per_tree
        # One search creates at most one node and num_actions edges per simulation.
        self.nodes_per_search = simulations + 1
        self.edges_per_search = self.nodes_per_search * game.num_actions
        node_capacity = int(self.nodes_per_search * max(self.config.arena_factor, 1.0)) + 1
        edge_capacity = int(self.edges_per_search * max(self.config.arena_factor, 1.0))
        B = num_trees
        self.nodes = np.zeros((B, node_capacity, NODE_FIELDS), dtype=np.int32)
        self.value0 = np.zeros((B, node_capacity), dtype=np.float64)
        self.edge_action = np.zeros((B, edge_capacity), dtype=np.int32)
        self.edge_prior = np.zeros((B, edge_capacity), dtype=np.float32)
        self.edge_child = np.full((B, edge_capacity), -1, dtype=np.int32)
        self.trees = np.zeros((B, TREE_FIELDS), dtype=np.int32)
        self.root_states = np.zeros((B, game.state_size), dtype=game.state_dtype)
        self.active = np.zeros(B, dtype=np.bool_)
        n = B * leaves
        self.planes = np.zeros((n, game.planes, game.height, game.width), dtype=np.float32)
        self.masks = np.zeros((n, game.num_actions), dtype=np.bool_)
        self.leaf_tree = np.zeros(n, dtype=np.int64)
        self.leaf_node = np.zeros(n, dtype=np.int64)
        self.leaf_playout = np.zeros(n, dtype=np.float64)
        self.playout_rng = make_rng(seed)
        self.visit_buffer = np.zeros((B, game.num_actions), dtype=np.float32)

    @property
    def num_trees(self) -> int:
        return self.trees.shape[0]

    def set_root(self, b: int, state: np.ndarray) -> None:
        """Start tree b afresh from `state` (a new game, or a position from outside)."""
        self.root_states[b] = state
        which = np.zeros(self.num_trees, dtype=np.bool_)
        which[b] = True
        self.kernels.reset_trees(self.nodes, self.value0, self.trees, self.root_states, which)
        self.active[b] = self.game.status(state) == 0

    def run(self, evaluator, add_noise: bool | np.ndarray = False,
            simulations: np.ndarray | None = None) -> int:
        """Run new simulations in every active tree: `simulations[b]` in tree b (at most the
        budget the search was built for), or that budget everywhere. `add_noise` mixes
        Dirichlet noise into the roots, everywhere or where a [B] mask says. Returns the
        number of network evaluations made."""
        k, cfg = self.kernels, self.config
        targets = self._targets(simulations)
        noisy = self.active & np.broadcast_to(np.asarray(add_noise, dtype=np.bool_), self.active.shape)
        k.make_room(self.nodes, self.value0, self.edge_action, self.trees, self.root_states,
                    self.active, self.nodes_per_search, self.edges_per_search)
        self.trees[:, SIMS] = 0
        evaluated = 0
        noise_pending = bool(noisy.any())
        while True:
            if noise_pending and self._roots_expanded():
                self._mix_noise(noisy)
                noise_pending = False
            count = k.select_leaves(self.nodes, self.value0, self.edge_action, self.edge_prior,
                                    self.edge_child, self.trees, self.root_states, self.active,
                                    targets, cfg.leaves_per_tree, cfg.c_puct,
                                    cfg.fpu_reduction, cfg.discount, cfg.score_utility,
                                    cfg.rollout_share, self.playout_rng, self.planes,
                                    self.masks, self.leaf_tree, self.leaf_node,
                                    self.leaf_playout)
            if count == 0:
                if not np.any(self.active & (self.trees[:, SIMS] < targets)):
                    return evaluated
                continue
            priors, values = evaluator(self.planes[:count], self.masks[:count])
            k.expand_and_backup(self.nodes, self.value0, self.edge_action, self.edge_prior,
                                self.edge_child, self.trees, self.masks,
                                np.ascontiguousarray(priors, dtype=np.float32),
                                np.ascontiguousarray(values, dtype=np.float32),
                                self.leaf_tree, self.leaf_node, count, cfg.discount,
                                cfg.rollout_share, self.leaf_playout)
            evaluated += count

    def _targets(self, simulations: np.ndarray | None) -> np.ndarray:
        if simulations is None:
            return np.full(self.num_trees, self.simulations, dtype=np.int32)
        targets = np.asarray(simulations, dtype=np.int32)
        if targets.shape != (self.num_trees,) or targets.min() < 1 or targets.max() > self.simulations:
            raise ValueError(f"per-tree simulations must be {self.num_trees} numbers from 1 to "
                             f"{self.simulations}.")
        return targets

    def _roots_expanded(self) -> bool:
        roots = self.trees[:, ROOT]
        starts = self.nodes[np.arange(self.num_trees), roots, EDGE_START]
        return bool(np.all((starts >= 0) | ~self.active))

    def _mix_noise(self, which: np.ndarray) -> None:
        alpha = self.config.dirichlet_alpha or self.game.dirichlet_alpha
        noise = self.rng.gamma(alpha, 1.0, size=(self.num_trees, self.game.num_actions))
        self.kernels.mix_root_noise(self.nodes, self.edge_action, self.edge_prior, self.trees,
                                    which, noise, self.config.dirichlet_epsilon)

    def visit_counts(self) -> np.ndarray:
        """[B, A] visit counts of each root's children (zeros for inactive trees)."""
        self.kernels.root_visits(self.nodes, self.edge_action, self.edge_child, self.trees,
                                 self.visit_buffer)
        return self.visit_buffer.copy()

    def root_priors(self) -> np.ndarray:
        """[B, A] the network's prior of each root move (zeros for unexpanded roots)."""
        priors = np.zeros((self.num_trees, self.game.num_actions), dtype=np.float32)
        for b in range(self.num_trees):
            root = self.trees[b, ROOT]
            start, count = self.nodes[b, root, EDGE_START], self.nodes[b, root, NUM_EDGES]
            if start >= 0:
                edges = slice(start, start + count)
                priors[b, self.edge_action[b, edges]] = self.edge_prior[b, edges]
        return priors

    def root_values(self) -> np.ndarray:
        """[B] mean value of each root from the view of its side to move."""
        idx = np.arange(self.num_trees)
        roots = self.trees[:, ROOT]
        visits = np.maximum(self.nodes[idx, roots, VISITS], 1)
        sign = np.where(self.nodes[idx, roots, TO_PLAY] == 0, 1.0, -1.0)
        values = sign * self.value0[idx, roots] / visits
        return values.astype(np.float32)

    def choose(self, visits: np.ndarray, temperature: np.ndarray | float) -> np.ndarray:
        """One action per tree: sampled with probability ∝ N^(1/τ), or the most visited
        (ties broken at random) where τ is 0."""
        temperature = np.broadcast_to(np.asarray(temperature, dtype=np.float64), (len(visits),))
        actions = np.zeros(len(visits), dtype=np.int64)
        for b, (counts, tau) in enumerate(zip(visits, temperature)):
            if counts.sum() <= 0:
                actions[b] = -1
            elif tau <= 1e-3:
                best = np.flatnonzero(counts == counts.max())
                actions[b] = best[self.rng.integers(len(best))]
            else:
                weights = counts.astype(np.float64) ** (1.0 / tau)
                actions[b] = self.rng.choice(len(counts), p=weights / weights.sum())
        return actions

    def advance(self, b: int, action: int) -> None:
        """Play `action` in tree b, reusing the subtree below it when the arena has room."""
        self.kernels.advance_root(self.nodes, self.value0, self.edge_action, self.edge_child,
                                  self.trees, self.root_states, b, action)
        self.active[b] = self.game.status(self.root_states[b]) == 0

    def principal_variation(self, b: int, max_moves: int = 16) -> list[int]:
        """Tree b's expected line: from the root, the most visited child while there is one
        (at most `max_moves` actions). Read-only."""
        line, node = [], int(self.trees[b, ROOT])
        while len(line) < max_moves and self.nodes[b, node, EDGE_START] >= 0:
            start = int(self.nodes[b, node, EDGE_START])
            children = self.edge_child[b, start:start + self.nodes[b, node, NUM_EDGES]]
            visits = np.where(children >= 0, self.nodes[b, children, VISITS], 0)
            if visits.size == 0 or visits.max() <= 0:
                break
            best = int(np.argmax(visits))
            line.append(int(self.edge_action[b, start + best]))
            node = int(children[best])
        return line
