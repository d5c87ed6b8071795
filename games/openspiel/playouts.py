"""Random playouts compiled for the OpenSpiel games that declare one here: a game not named
in PLAYOUTS plays out through OpenSpiel itself, one `child` a move (games.core.python_game),
about 1.5 ms for a 9×9 Hex game, ten times its network's time a position; leaf rollouts in
self-play (`selfplay.rollout_share`) and at play (`leaf_rollouts`) want them nearer the
network's pace.

Hex: uniformly random moves until a side joins its two edges are the empty cells in a
uniformly random order, taken in turns; the first side to be joined wins. Union-find over
the cells and the four edges finds that moment in one pass (`python -m alphazero.bench pure
game=hex` times it). tests/test_python_games.py checks the winner and the moves against
OpenSpiel's own play of the same moves.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from games.core.base import FIRST_WON, SECOND_WON
from games.core.rng import rand_below

# Hex's observation planes (games.openspiel.symmetries): 0-3 the second player's stones
# (o, joining west to east), 4 empty, 5-8 the first player's (x, joining north to south)
HEX_SECOND_PLANES, HEX_EMPTY_PLANE = slice(0, 4), 4


@njit(cache=True, inline="always")
def _root(parent, cell):
    while parent[cell] != cell:
        parent[cell] = parent[parent[cell]]  # path halving
        cell = parent[cell]
    return cell


@njit(cache=True)
def hex_play_out(owner, mover, height, width, rng, played):
    """Random play from a Hex board (`owner` int8[H*W]: 0 empty, 1 the first player's, 2 the
    second's; `mover` 0 or 1) to the first side joined: its status and how many moves, which
    are written to `played`. The first player joins north (row 0) to south, the second west
    (column 0) to east, as OpenSpiel's Hex; a cell touches (r, c +- 1), (r - 1, c),
    (r - 1, c + 1), (r + 1, c - 1) and (r + 1, c): each row sits half a cell right of the one
    above."""
    cells = height * width
    north, south, west, east = cells, cells + 1, cells + 2, cells + 3
    parent = np.arange(cells + 4)
    empty = np.empty(cells, dtype=np.int64)
    empties = 0
    for cell in range(cells):
        if owner[cell] == 0:
            empty[empties] = cell
            empties += 1
    for i in range(empties - 1, 0, -1):  # Fisher-Yates
        j = rand_below(rng, i + 1)
        empty[i], empty[j] = empty[j], empty[i]
    order = np.empty(cells, dtype=np.int64)  # the stones already down first, then the fill
    count = 0
    for cell in range(cells):
        if owner[cell] != 0:
            order[count] = cell
            count += 1
    stones = count
    for i in range(empties):
        order[count + i] = empty[i]
    board = owner.copy()
    for i in range(cells):
        cell = order[i]
        if i >= stones:
            board[cell] = 1 + (mover + i - stones) % 2
        side = board[cell]
        row, column = cell // width, cell % width
        if side == 1:
            if row == 0:
                parent[_root(parent, cell)] = _root(parent, north)
            if row == height - 1:
                parent[_root(parent, cell)] = _root(parent, south)
        else:
            if column == 0:
                parent[_root(parent, cell)] = _root(parent, west)
            if column == width - 1:
                parent[_root(parent, cell)] = _root(parent, east)
        for dr, dc in ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0)):
            r, c = row + dr, column + dc
            if 0 <= r < height and 0 <= c < width and board[r * width + c] == side:
                parent[_root(parent, cell)] = _root(parent, r * width + c)
        if i >= stones:
            played[i - stones] = cell
        if i + 1 >= stones:  # the position's own stones all down: a finished game plays none
            if _root(parent, north) == _root(parent, south):
                return FIRST_WON, i + 1 - stones
            if _root(parent, west) == _root(parent, east):
                return SECOND_WON, i + 1 - stones
    return SECOND_WON, empties  # unreachable: a full Hex board has a winner


def hex_playouts(game):
    """`play_out(position, rng)` for OpenSpiel's Hex (games.core.python_game's contract)."""
    height, width, cells = game.height, game.width, game.height * game.width
    played = np.empty(cells, dtype=np.int64)

    def play_out(position, rng):
        planes = np.asarray(position.observation_tensor(0), dtype=np.float32).reshape(-1, cells)
        owner = np.where(planes[HEX_EMPTY_PLANE] > 0, 0,
                         np.where(planes[HEX_SECOND_PLANES].sum(axis=0) > 0, 2, 1)).astype(np.int8)
        status, moves = hex_play_out(owner, game.side_to_move(position), height, width, rng, played)
        return int(status), played[:moves].tolist()

    return play_out


# OpenSpiel's short name -> (game) -> its play_out
PLAYOUTS = {"hex": hex_playouts}
