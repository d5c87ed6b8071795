"""The batched PUCT search's arrays and its Numba templates (alphazero.search.puct drives them).

Layout (in the spirit of mctx, but with compact edge blocks so a 361-action board does not
cost B * nodes * 361 cells): per tree, an arena of nodes and an arena of edges (`Tree`).
Values are stored from the first player's view, and a node's children are scored from the
view of the side to move at that node. So the sign flips exactly when the side to move
changes: a Connect6 pair (same side twice) or an Othello pass needs no special case.

One search step (Python calls it once per step, never per node): `select_leaves` walks every
active tree to a leaf, backs up terminal leaves
at once and encodes the others into one `LeafBatch`; the caller evaluates the batch; then
`expand_and_backup` creates the leaves' edges from the priors and backs up the values.
The kernels take their arrays as the named tuples below (Numba passes a tuple of arrays and
numbers as one argument); each kernel reads the fields it uses into locals first.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from games.core.arrays import copy_into

# Tree.nodes[b, n, :] fields
VISITS, PARENT, EDGE_START, NUM_EDGES, TO_PLAY, STATUS = range(6)
NODE_FIELDS = 6
# Tree.trees[b, :] fields
ROOT, NODES_USED, EDGES_USED, SIMS = range(4)
TREE_FIELDS = 4


class Tree(NamedTuple):
    """B search trees (one per concurrent game), each an arena of N nodes and E edges.

    nodes        int32 [B, N, NODE_FIELDS]: per node VISITS, PARENT (-1 at the root),
                 EDGE_START (its first edge; -1 until expanded), NUM_EDGES, TO_PLAY (0: the
                 first player), STATUS (the game's status code; 0: ongoing)
    value0       float64 [B, N]: the sum of the values backed up through each node, from the
                 first player's view
    edge_action  int32 [B, E]: the action each edge plays
    edge_prior   float32 [B, E]: its prior (the network's, renormalised over legal actions)
    edge_child   int32 [B, E]: the node it leads to; -1 until first visited
    trees        int32 [B, TREE_FIELDS]: per tree ROOT (its root node), NODES_USED and
                 EDGES_USED (the arenas' filled lengths), SIMS (simulations completed in this
                 search)
    root_states  game.state_dtype [B, state_size]: each tree's root position
    active       bool [B]: whether tree b is searched (its game is on and no one else moves
                 for it)
    """
    nodes: np.ndarray
    value0: np.ndarray
    edge_action: np.ndarray
    edge_prior: np.ndarray
    edge_child: np.ndarray
    trees: np.ndarray
    root_states: np.ndarray
    active: np.ndarray


class LeafBatch(NamedTuple):
    """The leaves one search step hands the network: up to L = B, one per tree.

    planes   float32 [L, planes, height, width]: each leaf's encoded position
    masks    bool [L, A]: its legal actions
    tree     int64 [L]: the tree it belongs to
    node     int64 [L]: its node in that tree
    playout  float64 [L]: the outcome of one random playout from it, first player's view
             (1, 0 or -1; written only when SearchParams.rollout_share > 0)
    """
    planes: np.ndarray
    masks: np.ndarray
    tree: np.ndarray
    node: np.ndarray
    playout: np.ndarray


class Walk(NamedTuple):
    """Where `descend` left each tree (rules in Python), up to B leaves.

    tree    int64 [B]: the tree
    node    int64 [B]: the leaf node
    parent  int64 [B]: the node it was just added below (its position is known), or -1 for
            a node already in the tree (a fresh root)
    action  int64 [B]: the action from parent to node (-1 with no parent)
    """
    tree: np.ndarray
    node: np.ndarray
    parent: np.ndarray
    action: np.ndarray


class SearchParams(NamedTuple):
    """The numbers the kernels read (alphazero.search.puct.SearchConfig says what each means)."""
    c_puct: float
    discount: float
    rollout_share: float


# --- Numba templates: the names `play`, `legal_actions`, `status`, `to_move`, `encode`,
# `random_playout` are bound to one game's kernels by games.core.specialize. ------------------

def value_for_first(status_code):
    """The value of a finished game from the first player's view."""
    if status_code == 1:
        return 1.0
    if status_code == 2:
        return -1.0
    return 0.0


def reset_tree(tree, b, root_to_play, root_status):
    nodes, trees = tree.nodes, tree.trees
    nodes[b, 0, :] = 0
    nodes[b, 0, PARENT] = -1
    nodes[b, 0, EDGE_START] = -1
    nodes[b, 0, TO_PLAY] = root_to_play
    nodes[b, 0, STATUS] = root_status
    tree.value0[b, 0] = 0.0
    trees[b, ROOT] = 0
    trees[b, NODES_USED] = 1
    trees[b, EDGES_USED] = 0
    trees[b, SIMS] = 0


def select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct):
    """The edge of node n with the highest PUCT score, from the view of the side to move; an
    unvisited child's Q is its parent's."""
    sign = 1.0 if nodes[b, n, TO_PLAY] == 0 else -1.0
    visits = nodes[b, n, VISITS]
    fpu = sign * value0[b, n] / visits if visits > 0 else 0.0
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


def backup(nodes, value0, b, leaf, v0, discount):
    """Count a visit and add v0 (first player's view) on the path from leaf to root, times
    `discount` per step up."""
    n = leaf
    while n >= 0:
        nodes[b, n, VISITS] += 1
        value0[b, n] += v0
        v0 *= discount
        n = nodes[b, n, PARENT]


def add_child(tree, b, n, e):
    """A new node for edge e of node n in tree b, unexpanded and unvisited; its TO_PLAY and
    STATUS are the caller's to set. Returns it."""
    nodes, trees = tree.nodes, tree.trees
    child = trees[b, NODES_USED]
    trees[b, NODES_USED] += 1
    tree.edge_child[b, e] = child
    nodes[b, child, :] = 0
    nodes[b, child, PARENT] = n
    nodes[b, child, EDGE_START] = -1
    tree.value0[b, child] = 0.0
    return child


def select_leaves(tree, leaves, params, target_sims, rng):
    """Walk each active tree that has not yet run its `target_sims[b]` simulations to a leaf.
    A terminal leaf is backed up here (its outcome); the others go into `leaves`, and when
    rollout_share > 0 are played out at random (`rng` a games.core.rng state). Returns the
    number of leaves to evaluate."""
    nodes, value0, edge_action = tree.nodes, tree.value0, tree.edge_action
    edge_prior, edge_child, trees = tree.edge_prior, tree.edge_child, tree.trees
    root_states, active = tree.root_states, tree.active
    out_planes, out_masks, playouts = leaves.planes, leaves.masks, leaves.playout
    leaf_tree, leaf_node = leaves.tree, leaves.node
    c_puct, discount, rollout_share = params.c_puct, params.discount, params.rollout_share
    count = 0
    state = np.empty(root_states.shape[1], dtype=root_states.dtype)
    for b in range(nodes.shape[0]):
        if not active[b] or trees[b, SIMS] >= target_sims[b]:
            continue
        copy_into(state, root_states[b])
        n = trees[b, ROOT]
        # down to a finished game (its value is known) or an unexpanded leaf
        while nodes[b, n, STATUS] == 0 and nodes[b, n, EDGE_START] >= 0:
            e = select_child(nodes, value0, edge_prior, edge_child, b, n, c_puct)
            play(state, edge_action[b, e])  # noqa: F821
            child = edge_child[b, e]
            if child < 0:
                child = add_child(tree, b, n, e)
                nodes[b, child, TO_PLAY] = to_move(state)  # noqa: F821
                nodes[b, child, STATUS] = status(state)  # noqa: F821
            n = child
        if nodes[b, n, STATUS] != 0:
            backup(nodes, value0, b, n, value_for_first(nodes[b, n, STATUS]), discount)
            trees[b, SIMS] += 1
            continue
        legal_actions(state, out_masks[count])  # noqa: F821
        encode(state, out_planes[count])  # noqa: F821
        if rollout_share > 0.0:  # the walk is done with `state`: play it out in place
            playouts[count] = value_for_first(random_playout(state, rng))  # noqa: F821
        leaf_tree[count] = b
        leaf_node[count] = n
        count += 1
    return count


def descend(tree, params, target_sims, walk):
    """select_leaves for rules in Python (alphazero.search.python_rules), without the game:
    walk each active tree that has not yet run its `target_sims[b]` simulations to a leaf, a
    known finished node (backed up here) or a new child, left for the caller to set its
    TO_PLAY and STATUS from the game. Returns the number of leaves written into `walk`."""
    nodes, value0, trees = tree.nodes, tree.value0, tree.trees
    edge_prior, edge_child, edge_action = tree.edge_prior, tree.edge_child, tree.edge_action
    count = 0
    for b in range(nodes.shape[0]):
        if not tree.active[b] or trees[b, SIMS] >= target_sims[b]:
            continue
        n = trees[b, ROOT]
        parent, action = -1, -1
        while nodes[b, n, STATUS] == 0 and nodes[b, n, EDGE_START] >= 0:
            e = select_child(nodes, value0, edge_prior, edge_child, b, n, params.c_puct)
            if edge_child[b, e] < 0:
                parent, action = n, edge_action[b, e]
                n = add_child(tree, b, n, e)
                break
            n = edge_child[b, e]
        if parent < 0 and nodes[b, n, STATUS] != 0:
            backup(nodes, value0, b, n, value_for_first(nodes[b, n, STATUS]), params.discount)
            trees[b, SIMS] += 1
            continue
        walk.tree[count] = b
        walk.node[count] = n
        walk.parent[count] = parent
        walk.action[count] = action
        count += 1
    return count


def backup_finished(tree, walk, count, discount):
    """Back up each of the first `count` walked leaves that the game found finished."""
    for i in range(count):
        b, n = walk.tree[i], walk.node[i]
        if tree.nodes[b, n, STATUS] != 0:
            backup(tree.nodes, tree.value0, b, n, value_for_first(tree.nodes[b, n, STATUS]),
                   discount)
            tree.trees[b, SIMS] += 1


def expand_and_backup(tree, leaves, priors, values, count, params):
    """Give each of the first `count` leaves its edges (`priors` [count, A] renormalised over
    legal actions) and back up its value (`values` [count], from the view of the side to move
    at the leaf), mixed with its random playout's outcome when rollout_share > 0."""
    nodes, value0, edge_action = tree.nodes, tree.value0, tree.edge_action
    edge_prior, edge_child, trees = tree.edge_prior, tree.edge_child, tree.trees
    masks, leaf_tree, leaf_node, playouts = leaves.masks, leaves.tree, leaves.node, leaves.playout
    discount, rollout_share = params.discount, params.rollout_share
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
        v0 = values[i] if nodes[b, n, TO_PLAY] == 0 else -values[i]
        if rollout_share > 0.0:
            v0 = (1.0 - rollout_share) * v0 + rollout_share * playouts[i]
        backup(nodes, value0, b, n, v0, discount)
        trees[b, SIMS] += 1


def root_visits(tree, out):
    """Visit counts of each root's children, by action, into out [B, A]."""
    nodes, edge_action, edge_child = tree.nodes, tree.edge_action, tree.edge_child
    out[:] = 0.0
    for b in range(nodes.shape[0]):
        root = tree.trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if start < 0:
            continue
        for e in range(start, start + nodes[b, root, NUM_EDGES]):
            child = edge_child[b, e]
            if child >= 0:
                out[b, edge_action[b, e]] = nodes[b, child, VISITS]


def mix_root_noise(tree, which, noise, epsilon):
    """Mix Dirichlet noise into the priors of the roots `which` [B] names; noise [B, A] are
    Gamma(alpha) draws, normalised here over each root's legal actions (a Dirichlet on that
    set)."""
    nodes, edge_action, edge_prior = tree.nodes, tree.edge_action, tree.edge_prior
    for b in range(nodes.shape[0]):
        root = tree.trees[b, ROOT]
        start = nodes[b, root, EDGE_START]
        if not which[b] or start < 0:
            continue
        end = start + nodes[b, root, NUM_EDGES]
        total = 0.0
        for e in range(start, end):
            total += noise[b, edge_action[b, e]]
        if total <= 0.0:
            continue
        for e in range(start, end):
            edge_prior[b, e] = (1 - epsilon) * edge_prior[b, e] + epsilon * noise[b, edge_action[b, e]] / total


def advance_root(tree, b, action):
    """Play `action` in tree b and keep the chosen child's subtree as the new root (or start
    afresh if the child was never visited)."""
    root_states = tree.root_states
    play(root_states[b], action)  # noqa: F821
    if not reroot(tree, b, action):
        reset_tree(tree, b, to_move(root_states[b]), status(root_states[b]))  # noqa: F821


def reroot(tree, b, action):
    """Keep the root's child through `action` as tree b's root, with its subtree; False
    (nothing changed) if that child was never visited."""
    nodes, trees = tree.nodes, tree.trees
    root = trees[b, ROOT]
    child = -1
    start = nodes[b, root, EDGE_START]
    if start >= 0:
        for e in range(start, start + nodes[b, root, NUM_EDGES]):
            if tree.edge_action[b, e] == action:
                child = tree.edge_child[b, e]
                break
    if child < 0:
        return False
    nodes[b, child, PARENT] = -1
    trees[b, ROOT] = child
    trees[b, SIMS] = 0
    return True


def reset_trees(tree, which):
    """Start afresh each tree that `which` [B] names, from its root state."""
    for b in range(which.shape[0]):
        if which[b]:
            state = tree.root_states[b]
            reset_tree(tree, b, to_move(state), status(state))  # noqa: F821


def make_room(tree, spare_nodes, spare_edges):
    """Start afresh any active tree whose arena cannot hold one more search: the reused
    subtree is dropped, never overrun."""
    for b in range(tree.nodes.shape[0]):
        if lacks_room(tree, b, spare_nodes, spare_edges):
            state = tree.root_states[b]
            reset_tree(tree, b, to_move(state), status(state))  # noqa: F821


def lacks_room(tree, b, spare_nodes, spare_edges):
    """Whether active tree b's arenas cannot hold one more search."""
    nodes, trees = tree.nodes, tree.trees
    return tree.active[b] and (nodes.shape[1] - trees[b, NODES_USED] < spare_nodes
                               or tree.edge_action.shape[1] - trees[b, EDGES_USED] < spare_edges)


# in dependency order; the game-free ones (no game kernel called) also serve rules in Python
GAME_FREE_TEMPLATES = [value_for_first, reset_tree, select_child, backup, add_child, descend,
                       backup_finished, expand_and_backup, root_visits, mix_root_noise, reroot, lacks_room]
TEMPLATES = GAME_FREE_TEMPLATES + [select_leaves, advance_root, reset_trees, make_room]
