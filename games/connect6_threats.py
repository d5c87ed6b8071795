"""Connect6's threats: the cells the rules force on the side to move.

A window is six cells in a row, column or diagonal; filling one makes six in a row (longer
lines win too). A side threatens a window when at least four of its cells hold the side's
stones and none the opponent's: its two stones of the next turn fill it. In that order:

1. A six this turn: the cells of the windows the mover can fill with the stones it has left.
2. A block: where the opponent threatens, the cells after which the mover's stones left this
   turn still reach every threatened window. None where one stone anywhere later still does,
   or where nothing does (the game is lost against best play).
3. A six next turn: where the opponent threatens nothing (so it cannot win first), the stones
   this turn that leave more threats than two opponent stones can reach.

Otherwise nothing is forced (None).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from games.stone_board import EMPTY

ROW = 6  # a window's length
THREAT = 4  # stones in a window that two more fill


def six_windows(size: int) -> np.ndarray:
    """int[W, 6]: the cells (row * size + col) of every six in a row, column or diagonal."""
    windows = []
    for row in range(size):
        for col in range(size):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row, end_col = row + (ROW - 1) * d_row, col + (ROW - 1) * d_col
                if 0 <= end_row < size and 0 <= end_col < size:
                    windows.append([(row + i * d_row) * size + col + i * d_col for i in range(ROW)])
    return np.array(windows, dtype=np.int64)


def threatened(windows: np.ndarray, board: np.ndarray, side: int) -> list[set]:
    """The windows `side` threatens on `board` (flat, EMPTY / 1 / 2), as sets of empty cells."""
    lines = board[windows]
    own, other = (lines == side).sum(axis=1), (lines == 3 - side).sum(axis=1)
    return [set(windows[w][lines[w] == EMPTY]) for w in np.flatnonzero((own >= THREAT) & (other == 0))]


def blockable(threats: list[set], stones: int) -> bool:
    """Whether `stones` stones can each take a cell so that every window holds one."""
    if not threats:
        return True
    if stones == 0:
        return False
    return any(blockable([t for t in threats if cell not in t], stones - 1)
               for cell in set.union(*threats))


def forced_cells(windows: np.ndarray, board: np.ndarray, mover: int, left: int,
                 num_actions: int) -> np.ndarray | None:
    """bool[num_actions] (see the module docstring), or None; `left` stones this turn."""
    lines = board[windows]
    own, other = (lines == mover).sum(axis=1), (lines == 3 - mover).sum(axis=1)
    forced = np.zeros(num_actions, dtype=np.bool_)
    sixes = (other == 0) & (own >= ROW - left)
    if sixes.any():
        forced[windows[sixes][lines[sixes] == EMPTY]] = True
        return forced
    threats = threatened(windows, board, 3 - mover)
    if threats:
        if blockable(threats, left - 1) or not blockable(threats, left):
            return None
        for cell in set.union(*threats):
            forced[cell] = blockable([t for t in threats if cell not in t], left - 1)
        return forced
    if not blockable(threatened(windows, board, mover), 2):
        return None  # already more threats than the opponent can block: every stone wins
    growing = (other == 0) & (own >= THREAT - left)
    cells = np.unique(windows[growing][lines[growing] == EMPTY])
    placements = [(c,) for c in cells] + (list(combinations(cells, 2)) if left == 2 else [])
    for stones in placements:
        board[list(stones)] = mover
        if not blockable(threatened(windows, board, mover), 2):
            forced[list(stones)] = True
        board[list(stones)] = EMPTY
    return forced if forced.any() else None
