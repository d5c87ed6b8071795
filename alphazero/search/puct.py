"""Batched PUCT search: B trees (one per concurrent game) in preallocated arrays, searched
together with one network call per search step for all of their leaves.

The arrays, their layout and the Numba kernels that walk them are
alphazero.search.puct_kernels's; this module holds the settings (SearchConfig) and the
Python side of a search (BatchedSearch): set roots, run the steps, read the results.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from alphazero.search.puct_kernels import (EDGE_START, NODE_FIELDS, NUM_EDGES, ROOT, SIMS,
                                           TEMPLATES, TO_PLAY, TREE_FIELDS, VISITS, LeafBatch,
                                           SearchParams, Tree)
from alphazero.search.python_rules import PythonRulesKernels
from games.core.rng import make_rng
from games.core.specialize import compiled_for, specialize


@dataclass
class SearchConfig:
    """The search's settings. Their defaults and what each means are the `mcts:` section of
    alphazero.config.schema (built by `from_cfg`); rollout_share is no `mcts:` setting
    but self-play's (`selfplay.rollout_share`) or an advisor's request (games.core.advice:
    leaf rollouts at play), so it alone has a default here: none; and dirichlet_alpha,
    whose None is the game's own (root_noise_alpha)."""
    c_puct: float
    dirichlet_epsilon: float
    arena_factor: float
    discount: float
    rollout_share: float = 0.0  # w > 0: a leaf is worth (1 - w) * the network's value + w *
                                # the outcome of one random playout from it (AlphaGo's mix)
    dirichlet_alpha: float | None = None  # the root noise's concentration; None: the game's
                                          # default (root_noise_alpha)

    @classmethod
    def from_cfg(cls, mcts, network_discount: float = 1.0, **overrides) -> SearchConfig:
        """From a composed config's `mcts:` with `overrides` on top. mcts.discount null takes
        `network_discount`: what the network to be searched was trained with (1, plain
        AlphaZero, in training), so that its values mean what the search expects."""
        settings = {f.name: mcts[f.name] for f in fields(cls) if f.name in mcts}
        if settings["discount"] is None:
            settings["discount"] = network_discount
        settings.update(overrides)
        return cls(**settings)


def root_noise_alpha(config: SearchConfig, game) -> float:
    """The root noise's Dirichlet alpha: the setting's, else the game's default (about 10 / its
    typical number of legal moves, AlphaZero's rule)."""
    return game.dirichlet_alpha if config.dirichlet_alpha is None else config.dirichlet_alpha


class SearchStep(NamedTuple):
    """The two kernels of a search step, each compiled for one search's argument types
    (select_leaves is a Python method where the rules are Python: python_rules)."""
    select_leaves: Callable
    expand_and_backup: Callable


class BatchedSearch:
    """PUCT over `num_trees` games at once; `evaluator(planes, legal) -> (priors, values)`
    is called once per search step with every tree's leaves in one batch. The config is
    read once, when the search is built."""

    def __init__(self, game, num_trees: int, simulations: int, config: SearchConfig,
                 seed: int = 0):
        if num_trees < 1 or simulations < 1:
            raise ValueError("the search needs at least one tree and one simulation.")
        self.game = game
        self.config = config
        self.simulations = simulations
        # rules in Python: their game steps run in Python beside the compiled tree kernels
        self.kernels = (specialize(game, TEMPLATES) if game.kernels is not None
                        else PythonRulesKernels(game, num_trees))
        self.rng = np.random.default_rng(seed)
        cfg = self.config
        self.params = SearchParams(c_puct=float(cfg.c_puct), discount=float(cfg.discount),
                                   rollout_share=float(cfg.rollout_share))
        # One search creates at most one node and num_actions edges per simulation.
        self.nodes_per_search = simulations + 1
        self.edges_per_search = self.nodes_per_search * game.num_actions
        node_capacity = int(self.nodes_per_search * max(cfg.arena_factor, 1.0)) + 1
        edge_capacity = int(self.edges_per_search * max(cfg.arena_factor, 1.0))
        B, A = num_trees, game.num_actions
        self.tree = Tree(nodes=np.zeros((B, node_capacity, NODE_FIELDS), dtype=np.int32),
                         value0=np.zeros((B, node_capacity), dtype=np.float64),
                         edge_action=np.zeros((B, edge_capacity), dtype=np.int32),
                         edge_prior=np.zeros((B, edge_capacity), dtype=np.float32),
                         edge_child=np.full((B, edge_capacity), -1, dtype=np.int32),
                         trees=np.zeros((B, TREE_FIELDS), dtype=np.int32),
                         root_states=np.zeros((B, game.state_size), dtype=game.state_dtype),
                         active=np.zeros(B, dtype=np.bool_))
        L = B  # a leaf per tree and step
        self.leaves = LeafBatch(
            planes=np.zeros((L, game.planes, game.height, game.width), dtype=np.float32),
            masks=np.zeros((L, A), dtype=np.bool_), tree=np.zeros(L, dtype=np.int64),
            node=np.zeros(L, dtype=np.int64), playout=np.zeros(L, dtype=np.float64))
        self.playout_rng = make_rng(seed)
        self.visit_buffer = np.zeros((B, A), dtype=np.float32)
        targets, priors, values = np.zeros(B, np.int32), np.zeros((L, A), np.float32), np.zeros(L, np.float32)
        select_leaves = (self.kernels.select_leaves if game.kernels is None else
                         compiled_for(self.kernels.select_leaves, self.tree, self.leaves,
                                      self.params, targets, self.playout_rng))
        self.step_kernels = SearchStep(
            select_leaves=select_leaves,
            expand_and_backup=compiled_for(self.kernels.expand_and_backup, self.tree,
                                           self.leaves, priors, values, 0, self.params))

    @property
    def num_trees(self) -> int:
        return self.tree.trees.shape[0]

    @property
    def active(self) -> np.ndarray:
        """[B] whether each tree is searched; a caller may turn trees off (False) before run."""
        return self.tree.active

    def set_root(self, b: int, state: np.ndarray) -> None:
        """Start tree b afresh from `state` (a new game, or a position from outside)."""
        self.tree.root_states[b] = state
        which = np.zeros(self.num_trees, dtype=np.bool_)
        which[b] = True
        self.kernels.reset_trees(self.tree, which)
        self.tree.active[b] = self.game.status(state) == 0

    def run(self, evaluator, add_noise: bool | np.ndarray = False,
            simulations: np.ndarray | None = None) -> int:
        """Run new simulations in every active tree: `simulations[b]` in tree b (at most the
        budget the search was built for), or that budget everywhere. `add_noise` mixes
        Dirichlet noise into the roots, everywhere or where a [B] mask says. Returns the
        number of network evaluations made."""
        tree, leaves, params, step = self.tree, self.leaves, self.params, self.step_kernels
        targets = self._targets(simulations)
        noisy = tree.active & np.broadcast_to(np.asarray(add_noise, dtype=np.bool_), tree.active.shape)
        self.kernels.make_room(tree, self.nodes_per_search, self.edges_per_search)
        tree.trees[:, SIMS] = 0
        evaluated = 0
        noise_pending = bool(noisy.any())
        shape = (-1, self.game.num_actions)
        while True:
            if noise_pending and self._roots_expanded():
                self._mix_noise(noisy)
                noise_pending = False
            count = step.select_leaves(tree, leaves, params, targets, self.playout_rng)
            if count == 0:
                if not np.any(tree.active & (tree.trees[:, SIMS] < targets)):
                    return evaluated
                continue
            priors, values = evaluator(leaves.planes[:count], leaves.masks[:count])
            # the types compiled_for compiled the step for: C-contiguous float32, 2-D and 1-D
            priors = np.ascontiguousarray(priors, dtype=np.float32).reshape(shape)
            values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
            step.expand_and_backup(tree, leaves, priors, values, count, params)
            evaluated += count

    def _targets(self, simulations: np.ndarray | None) -> np.ndarray:
        if simulations is None:
            return np.full(self.num_trees, self.simulations, dtype=np.int32)
        targets = np.ascontiguousarray(simulations, dtype=np.int32)
        if targets.shape != (self.num_trees,) or targets.min() < 1 or targets.max() > self.simulations:
            raise ValueError(f"per-tree simulations must be {self.num_trees} numbers from 1 to "
                             f"{self.simulations}.")
        return targets

    def _roots_expanded(self) -> bool:
        tree = self.tree
        starts = tree.nodes[np.arange(self.num_trees), tree.trees[:, ROOT], EDGE_START]
        return bool(np.all((starts >= 0) | ~tree.active))

    def _mix_noise(self, which: np.ndarray) -> None:
        noise = self.rng.gamma(root_noise_alpha(self.config, self.game), 1.0,
                               size=(self.num_trees, self.game.num_actions))
        self.kernels.mix_root_noise(self.tree, which, noise, float(self.config.dirichlet_epsilon))

    def visit_counts(self) -> np.ndarray:
        """[B, A] visit counts of each root's children (zeros for inactive trees)."""
        self.kernels.root_visits(self.tree, self.visit_buffer)
        return self.visit_buffer.copy()

    def root_priors(self) -> np.ndarray:
        """[B, A] the network's prior of each root move (zeros for unexpanded roots)."""
        tree = self.tree
        priors = np.zeros((self.num_trees, self.game.num_actions), dtype=np.float32)
        for b in range(self.num_trees):
            root = tree.trees[b, ROOT]
            start, count = tree.nodes[b, root, EDGE_START], tree.nodes[b, root, NUM_EDGES]
            if start >= 0:
                edges = slice(start, start + count)
                priors[b, tree.edge_action[b, edges]] = tree.edge_prior[b, edges]
        return priors

    def root_values(self) -> np.ndarray:
        """[B] mean value of each root from the view of its side to move."""
        tree = self.tree
        idx = np.arange(self.num_trees)
        roots = tree.trees[:, ROOT]
        visits = np.maximum(tree.nodes[idx, roots, VISITS], 1)
        sign = np.where(tree.nodes[idx, roots, TO_PLAY] == 0, 1.0, -1.0)
        values = sign * tree.value0[idx, roots] / visits
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
        self.kernels.advance_root(self.tree, b, action)
        self.tree.active[b] = self.game.status(self.tree.root_states[b]) == 0

    def principal_variation(self, b: int, max_moves: int = 16) -> list[int]:
        """Tree b's expected line: from the root, the most visited child while there is one
        (at most `max_moves` actions). Read-only."""
        nodes = self.tree.nodes
        line, node = [], int(self.tree.trees[b, ROOT])
        while len(line) < max_moves and nodes[b, node, EDGE_START] >= 0:
            start = int(nodes[b, node, EDGE_START])
            children = self.tree.edge_child[b, start:start + nodes[b, node, NUM_EDGES]]
            visits = np.where(children >= 0, nodes[b, children, VISITS], 0)
            if visits.size == 0 or visits.max() <= 0:
                break
            best = int(np.argmax(visits))
            line.append(int(self.tree.edge_action[b, start + best]))
            node = int(children[best])
        return line
