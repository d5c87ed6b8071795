"""Connect6's threats: the cells the rules force on the side to move.

A window is six cells in a row, column or diagonal; filling one makes six in a row (longer
lines win too). A side threatens a window when at least four of its cells hold the side's
stones and none the opponent's: its two stones of the next turn fill it. In that order:

1. A six this turn: the cells of the windows the mover can fill with the stones it has left.
2. A block: where the opponent threatens, the cells after which the mover's stones left this
   turn still reach every threatened window. None where one stone anywhere later still does,
   or where nothing does (the game is lost against best play).
3. A forced six: where the opponent threatens nothing (so it cannot win first), every
   placement of this turn's stones that leaves more threats than two opponent stones can
   reach (a six next turn); where there is none, with `depth` > 0, the first placement
   found whose threats force both opponent stones, turn after turn, up to such a six
   (games.connect6_tss).

Otherwise nothing is forced (None).
"""
from __future__ import annotations

import numpy as np

from games.connect6_tss import forcing_win_cells
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


def forced_cells(windows: np.ndarray, through: np.ndarray, board: np.ndarray, mover: int,
                 left: int, depth: int) -> np.ndarray | None:
    """bool[cells] (see the module docstring), or None; `left` stones this turn; `depth`
    turns of threats read ahead for rule 3 (games.connect6_tss)."""
    lines = board[windows]
    own, other = (lines == mover).sum(axis=1), (lines == 3 - mover).sum(axis=1)
    forced = np.zeros(board.size, dtype=np.bool_)
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
    forced = forcing_win_cells(windows, through, board, mover, left, depth)
    return forced if forced.any() else None
