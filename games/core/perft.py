"""Game-generic move-path enumeration (perft) and random-playout timing kernels.

Perft convention: perft(pos, 0) = 1; perft(pos, d) = sum over legal actions of
perft(child, d - 1); a finished game has no actions, so it counts 1 when reached at exactly
depth d and 0 deeper. An Othello pass is an action.
"""
from __future__ import annotations

import numpy as np

from games.core.arrays import copy_into
from games.core.specialize import bound_python, specialize

# The names below (status, legal_actions, play, random_playout, ply) are bound to one game's
# kernels by games.core.specialize; these templates are never called directly.


def perft(root, depth, num_actions):
    if depth == 0:
        return 1
    if status(root) != 0:  # noqa: F821
        return 0
    states = np.empty((depth, root.shape[0]), dtype=root.dtype)
    masks = np.zeros((depth, num_actions), dtype=np.bool_)
    next_action = np.zeros(depth, dtype=np.int64)
    states[0] = root
    count = legal_actions(states[0], masks[0])  # noqa: F821
    if depth == 1:
        return count
    total = 0
    level = 0  # we are expanding the children of states[level]
    while level >= 0:
        a = next_action[level]
        while a < num_actions and not masks[level, a]:
            a += 1
        if a == num_actions:
            level -= 1
            continue
        next_action[level] = a + 1
        child = states[level + 1]
        copy_into(child, states[level])
        play(child, a)  # noqa: F821
        if status(child) != 0:
            continue  # finished before the last ply: it contributes nothing deeper
        n = legal_actions(child, masks[level + 1])  # noqa: F821
        if level + 2 == depth:
            total += n  # bulk count: each legal action of the child is one path
        else:
            next_action[level + 1] = 0
            level += 1
    return total


def run_playouts(start, rng, count, outcomes):
    """Play `count` random games from `start`; add them to outcomes[status]; return total plies."""
    state = start.copy()
    plies = 0
    for _ in range(count):
        copy_into(state, start)
        outcomes[random_playout(state, rng)] += 1  # noqa: F821
        plies += ply(state) - ply(start)  # noqa: F821
    return plies


def compiled(game):
    if game.kernels is None:  # rules in Python: the same code, run as Python
        return bound_python(game, [perft, run_playouts])
    return specialize(game, [perft, run_playouts])
