"""The batched PUCT search's game steps for rules in Python (games.core.python_game).

The tree stays the kernel games' arrays, walked and updated by the same compiled game-free
kernels (alphazero.search.puct_kernels); only what asks the game runs here, in Python, once
per simulation: `descend` walks each tree to a new child, and this module computes that
child's position from its parent's with one `next_position`, reads its side to move and
result, and encodes it with its legal moves into the leaf batch. The position of every node
is kept (per tree, by node number), so no move is ever replayed.

`PythonRulesKernels` stands in for the compiled namespace a kernel game's search uses
(BatchedSearch.kernels), with the same functions and arguments; `PythonRulesPureMCTS` does
the same for pure MCTS (alphazero.search.pure_mcts.PureMCTS.kernels).
"""
from __future__ import annotations

import numpy as np

from alphazero.search.puct_kernels import (GAME_FREE_TEMPLATES, STATUS, TO_PLAY, Walk,
                                           value_for_first)
from games.core.base import FIRST_WON, ONGOING, SECOND_WON
from games.core.rng import rand_below
from games.core.specialize import compiled_for, specialize


class PythonRulesKernels:
    """A search's kernels for a game whose rules are Python methods: the tree's own kernels
    compiled (once for every such game), and the steps that ask the game done here."""

    def __init__(self, game, num_trees: int):
        self.game = game
        self.compiled = specialize(game, GAME_FREE_TEMPLATES)
        self.expand_and_backup = self.compiled.expand_and_backup
        self.root_visits = self.compiled.root_visits
        self.mix_root_noise = self.compiled.mix_root_noise
        self.positions: list[dict] = [{} for _ in range(num_trees)]  # per tree: node -> position
        self.walk = Walk(*(np.zeros(num_trees, dtype=np.int64) for _ in Walk._fields))
        self._descend = self._backup_finished = None  # entry points, compiled at first use

    def _restart(self, tree, b: int) -> None:
        position = self.game.position(tree.root_states[b])
        self.compiled.reset_tree(tree, b, self.game.side_to_move(position),
                                 self.game.result(position))
        self.positions[b] = {0: position}

    def reset_trees(self, tree, which: np.ndarray) -> None:
        for b in np.flatnonzero(which):
            self._restart(tree, int(b))

    def advance_root(self, tree, b: int, action: int) -> None:
        self.game.play(tree.root_states[b], action)
        if not self.compiled.reroot(tree, b, action):
            self._restart(tree, b)

    def make_room(self, tree, spare_nodes: int, spare_edges: int) -> None:
        for b in range(len(self.positions)):
            if self.compiled.lacks_room(tree, b, spare_nodes, spare_edges):
                self._restart(tree, b)

    def select_leaves(self, tree, leaves, params, target_sims, rng) -> int:
        """puct_kernels.select_leaves's job: the leaves to evaluate in `leaves`, finished
        games backed up; returns how many leaves."""
        if self._descend is None:
            self._descend = compiled_for(self.compiled.descend, tree, params, target_sims, self.walk)
            self._backup_finished = compiled_for(self.compiled.backup_finished, tree, self.walk,
                                                 0, params.discount)
        game, walk, nodes = self.game, self.walk, tree.nodes
        walked = self._descend(tree, params, target_sims, self.walk)
        count, finished = 0, False
        for i in range(walked):
            b, n, parent = int(walk.tree[i]), int(walk.node[i]), int(walk.parent[i])
            positions = self.positions[b]
            if parent < 0:
                position = positions[n]
            else:
                position = positions[n] = game.next_position(positions[parent], int(walk.action[i]))
                code = game.result(position)
                nodes[b, n, TO_PLAY] = game.side_to_move(position)
                nodes[b, n, STATUS] = code
                if code != ONGOING:
                    finished = True
                    continue
            mask = leaves.masks[count]
            mask[:] = False
            mask[game.legal_moves(position)] = True
            planes = leaves.planes[count]
            planes[:] = 0
            game.encode_position(position, planes)
            if params.rollout_share > 0.0:
                leaves.playout[count] = value_for_first(game.play_out(position, rng)[0])
            leaves.tree[count] = b
            leaves.node[count] = n
            count += 1
        if finished:
            self._backup_finished(tree, self.walk, walked, params.discount)
        return count


class _Node:
    """A pure-MCTS node: its position, side to move and result; its children by action as
    they are tried; visits and the reward sum from the view of the side that chose it."""
    __slots__ = ("position", "mover", "status", "untried", "children", "visits", "reward", "action")

    def __init__(self, game, position, action: int):
        self.position, self.action = position, action
        self.mover, self.status = game.side_to_move(position), game.result(position)
        self.untried = list(game.legal_moves(position))
        self.children: list[_Node] = []
        self.visits, self.reward = 0, 0.0


class PythonRulesPureMCTS:
    """alphazero.search.pure_mcts's `search_many` for rules in Python: the same UCT (UCB1
    with rewards 1, 1/2, 0; one untried action expanded at random per iteration; one random
    playout), on nodes that keep their positions."""

    def __init__(self, game):
        self.game = game

    def search_many(self, root_states, active, iterations, tables, arena, rng, visits_out,
                    values_out) -> None:
        for b in np.flatnonzero(active):
            values_out[b] = self.search_one(root_states[b], iterations, tables, rng, visits_out[b])

    def search_one(self, root_state, iterations, tables, rng, visits_out) -> float:
        game = self.game
        root = _Node(game, game.position(root_state), -1)
        for _ in range(iterations):
            node, path = root, [root]
            while node.status == ONGOING and not node.untried and node.children:
                scale = tables.scale_by_visits[node.visits]
                node = max(node.children, key=lambda child: child.reward * tables.inverse[child.visits]
                           + scale * tables.inverse_sqrt[child.visits])
                path.append(node)
            final = node.status
            if final == ONGOING:
                action = node.untried.pop(rand_below(rng, len(node.untried)))
                child = _Node(game, game.next_position(node.position, action), action)
                node.children.append(child)
                path.append(child)
                final = child.status if child.status != ONGOING else game.play_out(child.position, rng)[0]
            first_reward = 1.0 if final == FIRST_WON else 0.0 if final == SECOND_WON else 0.5
            for parent, child in zip(path, path[1:]):
                child.visits += 1
                child.reward += first_reward if parent.mover == 0 else 1.0 - first_reward
            root.visits += 1
        visits_out[:] = 0
        for child in root.children:
            visits_out[child.action] = child.visits
        return sum(child.reward for child in root.children) / max(iterations, 1)
