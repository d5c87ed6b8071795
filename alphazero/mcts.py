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

Gumbel root selection (Danihelka et al. 2022, "Policy improvement by planning with Gumbel";
`SearchConfig.gumbel_considered`): at the roots that would get Dirichlet noise, the search
samples that many moves without replacement (Gumbel-top-k), splits the simulations among
them by sequential halving, plays the survivor, and returns as policy target the softmax of
the network's logits plus the rescaled completed Q-values, an improved policy even when few
moves are visited. Below the root the search stays PUCT.

One search step (Python calls it once per step, never per node): `select_leaves` walks every
active tree to a leaf (several per tree with virtual loss if asked), backs up terminal leaves
at once and encodes the others into one batch; the caller evaluates the batch; then
`expand_and_backup` creates the leaves' edges from the priors and backs up the values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.arrays import copy_into
from games.specialize import specialize

# nodes[b, n, :] fields
VISITS, PARENT, EDGE_START, NUM_EDGES, TO_PLAY, STATUS, PENDING, IN_EDGE = range(8)
NODE_FIELDS = 8
# trees[b, :] fields
ROOT, NODES_USED, EDGES_USED, SIMS = range(4)
TREE_FIELDS = 4
# a virtual loss makes a path look lost for the side that chose it, until the real value lands
VIRTUAL_LOSS = 1.0
# Gumbel MuZero's sigma: rescaled Q-values times (visit_init + the most visits) * value_scale
# (mctx's defaults)
GUMBEL_VISIT_INIT = 50.0
GUMBEL_VALUE_SCALE = 0.1


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
    forced_k: float = 0.0  # KataGo's forced playouts at noisy roots: a child with prior P gets
                           # at least sqrt(forced_k * P * N) of the root's N visits; 0 = off
    gumbel_considered: int = 0  # Gumbel root selection instead of Dirichlet noise at noisy
                                # roots, among this many sampled moves; 0 = off


# --- Numba templates: the names `play`, `legal_actions`, `status`, `to_move`, `encode` are
# bound to one game's kernels by games.specialize. ---------------------------------------

def value_for_first(status_code):
    """The value of a finished game from the first player's view."""
    if status_code == 1:
        return 1.0
    if status_code == 2:
        return -1.0
    return 0.0


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


def select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct, fpu_reduction, forced_k):
    """The edge of node n with the highest PUCT score, from the view of the side to move.
    With forced_k > 0 (a noisy root), a child short of its forced playouts
    sqrt(forced_k * P * N) goes first: noise gives every move some prior, so every move gets
    a few visits, exploration that the pruned policy target does not have to pay for."""
    sign = 1.0 if nodes[b, n, TO_PLAY] == 0 else -1.0
    visits = nodes[b, n, VISITS]
    parent_q = sign * value0[b, n] / visits if visits > 0 else 0.0
    fpu = parent_q - fpu_reduction
    explore = c_puct * np.sqrt(max(visits, 1))
    start = nodes[b, n, EDGE_START]
    best_edge = start
    best_score = -np.inf
    forced_edge = -1
    forced_score = -np.inf
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
        if (forced_k > 0.0 and score > forced_score
                and child_visits < np.sqrt(forced_k * edge_prior[b, e] * visits)):
            forced_score = score
            forced_edge = e
    return forced_edge if forced_edge >= 0 else best_edge


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
                  forced, forced_k, gumbel_roots, gumbel, root_value, considered,
                  out_planes, out_masks, leaf_tree, leaf_node):
    """Walk each active tree that has not yet run its `target_sims[b]` simulations to up to
    `leaves_per_tree` leaves (with forced playouts at the roots where `forced[b]`, Gumbel
    root selection where `gumbel_roots[b]`). Terminal leaves are backed up here; the others
    are encoded into out_planes/out_masks. Returns the number of leaves to evaluate."""
    count = 0
    state = np.empty(root_states.shape[1], dtype=root_states.dtype)
    scores = np.empty(out_masks.shape[1], dtype=np.float64)
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
                at_root = n == trees[b, ROOT]
                e = -1
                if at_root and gumbel_roots[b]:
                    e = gumbel_root_edge(nodes, value0, edge_action, edge_prior, edge_child, b,
                                         n, gumbel, root_value[b], considered,
                                         target_sims[b] - 1, scores)
                if e < 0:  # PUCT, or no Gumbel candidate free (virtual-loss collisions)
                    root_k = forced_k if forced[b] and at_root else 0.0
                    e = select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct,
                                     fpu_reduction, root_k)
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
                backup(nodes, value0, b, n, value_for_first(nodes[b, n, STATUS]), False, discount)
                trees[b, SIMS] += 1
                continue
            nodes[b, n, PENDING] = 1
            apply_virtual_loss(nodes, value0, b, n)
            legal_actions(state, out_masks[count])  # noqa: F821
            encode(state, out_planes[count])  # noqa: F821
            leaf_tree[count] = b
            leaf_node[count] = n
            count += 1
    return count


def expand_and_backup(nodes, value0, edge_action, edge_prior, edge_child, trees,
                      masks, priors, values, leaf_tree, leaf_node, count, discount, root_value):
    """Give each evaluated leaf its edges (priors renormalised over legal actions) and back
    up its value (from the view of the side to move at the leaf). A root's own network
    value goes to root_value[b] as well (Gumbel's completed Q-values need it)."""
    for i in range(count):
        b = leaf_tree[i]
        n = leaf_node[i]
        if n == trees[b, ROOT]:
            root_value[b] = values[i]
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


def pruned_root_visits(nodes, value0, edge_action, edge_prior, edge_child, trees, which,
                       c_puct, forced_k, out):
    """KataGo's policy target pruning, for the roots in `which` (searched with forced
    playouts): each child but the most visited loses up to its forced playouts, as many as
    keep its PUCT score below the best child's, and a child left with one visit is dropped.
    What remains are the visits the search gave on merit. Other roots: plain visit counts."""
    root_visits(nodes, edge_action, edge_child, trees, out)
    for b in range(nodes.shape[0]):
        root = trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if not which[b] or start < 0:
            continue
        sign = 1.0 if nodes[b, root, TO_PLAY] == 0 else -1.0
        visits = max(nodes[b, root, VISITS], 1)
        explore = c_puct * np.sqrt(visits)
        end = start + nodes[b, root, NUM_EDGES]
        best, best_visits = -1, 0
        for e in range(start, end):
            child = edge_child[b, e]
            if child >= 0 and nodes[b, child, VISITS] > best_visits:
                best, best_visits = e, nodes[b, child, VISITS]
        if best < 0:
            continue  # no child visited: nothing to prune
        best_child = edge_child[b, best]
        best_score = (sign * value0[b, best_child] / best_visits
                      + explore * edge_prior[b, best] / (1.0 + best_visits))
        for e in range(start, end):
            child = edge_child[b, e]
            if e == best or child < 0 or nodes[b, child, VISITS] == 0:
                continue
            child_visits = nodes[b, child, VISITS]
            q = sign * value0[b, child] / child_visits
            allowance = np.sqrt(forced_k * edge_prior[b, e] * visits)
            kept = child_visits
            while (kept > 0 and child_visits - (kept - 1) <= allowance
                   and q + explore * edge_prior[b, e] / kept < best_score):
                kept -= 1
            out[b, edge_action[b, e]] = kept if kept > 1 else 0


def considered_visit(m, n, i):
    """Sequential halving's schedule (as in mctx): the visit count a root child must have to
    be chosen at simulation i of n, with m moves considered. All m get equal visits, then the
    better half, and so on down to two, each phase about n / ceil(log2 m) simulations."""
    if m <= 1:
        return i
    phases = int(np.ceil(np.log2(m)))
    visits = 0
    position = 0
    while True:
        for _ in range(max(1, n // (phases * m))):
            if i < position + m:
                return visits
            position += m
            visits += 1
        m = max(2, m // 2)


def improved_logits(nodes, value0, edge_prior, edge_child, b, root, net_value, out):
    """Gumbel MuZero's log prior + sigma(completed Q) of each root edge into out[:k], from
    the view of the side to move: a visited child keeps its mean value, an unvisited one gets
    v_mix (the root's network value mixed with the prior-weighted mean of the visited
    children's), then all are rescaled to [0, 1] and scaled by (GUMBEL_VISIT_INIT + the most
    visits) * GUMBEL_VALUE_SCALE, so the search's values weigh more as its visits grow."""
    sign = 1.0 if nodes[b, root, TO_PLAY] == 0 else -1.0
    start = nodes[b, root, EDGE_START]
    k = nodes[b, root, NUM_EDGES]
    total_visits, most_visits, visited_prior, weighted_q = 0, 0, 0.0, 0.0
    for j in range(k):
        child = edge_child[b, start + j]
        visits = nodes[b, child, VISITS] if child >= 0 else 0
        if visits > 0:
            q = sign * value0[b, child] / visits
            total_visits += visits
            most_visits = max(most_visits, visits)
            visited_prior += edge_prior[b, start + j]
            weighted_q += edge_prior[b, start + j] * q
    mixed = net_value
    if total_visits > 0 and visited_prior > 0.0:
        mixed = (net_value + total_visits * weighted_q / visited_prior) / (total_visits + 1)
    low, high = np.inf, -np.inf
    for j in range(k):
        child = edge_child[b, start + j]
        visits = nodes[b, child, VISITS] if child >= 0 else 0
        out[j] = sign * value0[b, child] / visits if visits > 0 else mixed
        low = min(low, out[j])
        high = max(high, out[j])
    scale = (GUMBEL_VISIT_INIT + most_visits) * GUMBEL_VALUE_SCALE / max(high - low, 1e-8)
    for j in range(k):
        out[j] = (out[j] - low) * scale + np.log(max(edge_prior[b, start + j], 1e-30))


def gumbel_root_edge(nodes, value0, edge_action, edge_prior, edge_child, b, root, gumbel,
                     net_value, considered, simulations, scores):
    """The root edge sequential halving visits next: among the children with exactly the
    schedule's visit count, the best by Gumbel draw + improved logit. In the
    first phase every unvisited move qualifies and sigma is the same for all of them, so the
    first m picks are the Gumbel-top-m sample. -1 if no child qualifies."""
    start = nodes[b, root, EDGE_START]
    k = nodes[b, root, NUM_EDGES]
    improved_logits(nodes, value0, edge_prior, edge_child, b, root, net_value, scores)
    due = considered_visit(min(considered, k), simulations, nodes[b, root, VISITS] - 1)
    best_edge, best_score = -1, -np.inf
    for j in range(k):
        e = start + j
        child = edge_child[b, e]
        visits = nodes[b, child, VISITS] if child >= 0 else 0
        if visits != due:
            continue
        score = gumbel[b, edge_action[b, e]] + scores[j]
        if score > best_score:
            best_edge, best_score = e, score
    return best_edge


def gumbel_policies(nodes, value0, edge_action, edge_prior, edge_child, trees, which,
                    root_value, out):
    """Gumbel's improved policy, the softmax of the improved logits over the legal moves of
    each root in `which`, into out[b]; other rows are left alone."""
    logits = np.empty(out.shape[1], dtype=np.float64)
    for b in range(nodes.shape[0]):
        root = trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if not which[b] or start < 0:
            continue
        k = nodes[b, root, NUM_EDGES]
        improved_logits(nodes, value0, edge_prior, edge_child, b, root, root_value[b], logits)
        weights = np.exp(logits[:k] - logits[:k].max())
        weights /= weights.sum()
        out[b, :] = 0.0
        for j in range(k):
            out[b, edge_action[b, start + j]] = weights[j]


def gumbel_choices(nodes, value0, edge_action, edge_prior, edge_child, trees, which, gumbel,
                   root_value, out):
    """The move to play at each root in `which`, into out[b]: of the most visited children
    (the survivors of sequential halving), the best by Gumbel draw + improved logit."""
    logits = np.empty(gumbel.shape[1], dtype=np.float64)
    for b in range(nodes.shape[0]):
        root = trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if not which[b] or start < 0:
            continue
        k = nodes[b, root, NUM_EDGES]
        improved_logits(nodes, value0, edge_prior, edge_child, b, root, root_value[b], logits)
        visits = np.zeros(k, dtype=np.int64)
        for j in range(k):
            child = edge_child[b, start + j]
            if child >= 0:
                visits[j] = nodes[b, child, VISITS]
        most_visits = visits.max()
        best_score = -np.inf
        for j in range(k):
            score = gumbel[b, edge_action[b, start + j]] + logits[j]
            if visits[j] == most_visits and score > best_score:
                best_score = score
                out[b] = edge_action[b, start + j]


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


_TEMPLATES = [value_for_first, reset_tree, select_child, backup, apply_virtual_loss,
              considered_visit, improved_logits, gumbel_root_edge, select_leaves,
              expand_and_backup, root_visits, pruned_root_visits, gumbel_policies, gumbel_choices,
              mix_root_noise, advance_root, reset_trees, make_room]


class BatchedSearch:
    """PUCT over `num_trees` games at once; `evaluator(planes, legal) -> (priors, values)`
    is called once per search step with every tree's leaves in one batch."""

    def __init__(self, game, num_trees: int, simulations: int, config: SearchConfig | None = None,
                 seed: int = 0):
        if num_trees < 1 or simulations < 1:
            raise ValueError("the search needs at least one tree and one simulation.")
        if config is not None and config.gumbel_considered > 0 and config.forced_k > 0:
            raise ValueError("Gumbel root selection and forced playouts do not go together.")
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
        self.visit_buffer = np.zeros((B, game.num_actions), dtype=np.float32)
        self.root_value = np.zeros(B, dtype=np.float64)  # each root's network value
        self.gumbel_roots = np.zeros(B, dtype=np.bool_)  # roots the last run() searched with Gumbel
        self.gumbel = np.zeros((B, game.num_actions), dtype=np.float64)  # their Gumbel draws

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
        Dirichlet noise into the roots, everywhere or where a [B] mask says; with Gumbel root
        selection on, those roots are searched afresh with it instead. Returns the number of
        network evaluations made."""
        k, cfg = self.kernels, self.config
        targets = self._targets(simulations)
        noisy = self.active & np.broadcast_to(np.asarray(add_noise, dtype=np.bool_), self.active.shape)
        k.make_room(self.nodes, self.value0, self.edge_action, self.trees, self.root_states,
                    self.active, self.nodes_per_search, self.edges_per_search)
        self.gumbel_roots[:] = noisy if cfg.gumbel_considered > 0 else False
        if self.gumbel_roots.any():
            # Sequential halving schedules the root's visits from zero: no reused subtree.
            k.reset_trees(self.nodes, self.value0, self.trees, self.root_states, self.gumbel_roots)
            self.gumbel[:] = self.rng.gumbel(size=self.gumbel.shape)
            noisy = noisy & ~self.gumbel_roots
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
                                    cfg.fpu_reduction, cfg.discount, noisy, cfg.forced_k,
                                    self.gumbel_roots, self.gumbel, self.root_value,
                                    cfg.gumbel_considered, self.planes, self.masks,
                                    self.leaf_tree, self.leaf_node)
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
                                self.root_value)
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

    def policy_targets(self, forced: np.ndarray) -> np.ndarray:
        """[B, A] policy targets, unnormalised: visit counts pruned of forced playouts where
        `forced` says (the roots searched with noise) when forced playouts are on; Gumbel's
        improved policy at the roots the last run() searched with it; plain visits elsewhere."""
        which = np.asarray(forced, dtype=np.bool_) & (self.config.forced_k > 0)
        self.kernels.pruned_root_visits(self.nodes, self.value0, self.edge_action, self.edge_prior,
                                        self.edge_child, self.trees, which, self.config.c_puct,
                                        self.config.forced_k, self.visit_buffer)
        self.kernels.gumbel_policies(self.nodes, self.value0, self.edge_action, self.edge_prior,
                                     self.edge_child, self.trees, self.gumbel_roots,
                                     self.root_value, self.visit_buffer)
        return self.visit_buffer.copy()

    def gumbel_choices(self) -> np.ndarray:
        """[B] the move sequential halving chose at each root the last run() searched with
        Gumbel root selection; -1 at the others."""
        moves = np.full(self.num_trees, -1, dtype=np.int64)
        self.kernels.gumbel_choices(self.nodes, self.value0, self.edge_action, self.edge_prior,
                                    self.edge_child, self.trees, self.gumbel_roots, self.gumbel,
                                    self.root_value, moves)
        return moves

    def root_values(self) -> np.ndarray:
        """[B] mean value of each root from the view of its side to move (at a Gumbel root,
        of the move sequential halving chose)."""
        idx = np.arange(self.num_trees)
        roots = self.trees[:, ROOT]
        visits = np.maximum(self.nodes[idx, roots, VISITS], 1)
        sign = np.where(self.nodes[idx, roots, TO_PLAY] == 0, 1.0, -1.0)
        values = sign * self.value0[idx, roots] / visits
        # Sequential halving spreads a Gumbel root's visits over weaker moves on purpose, so
        # their mean undervalues the position: there, the chosen move's value.
        for b, move in enumerate(self.gumbel_choices()):
            if move >= 0:
                start = self.nodes[b, roots[b], EDGE_START]
                edges = range(start, start + self.nodes[b, roots[b], NUM_EDGES])
                child = next(self.edge_child[b, e] for e in edges if self.edge_action[b, e] == move)
                if child >= 0 and self.nodes[b, child, VISITS] > 0:
                    values[b] = sign[b] * self.value0[b, child] / self.nodes[b, child, VISITS]
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
