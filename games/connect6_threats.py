"""Connect6's threats: the cells the rules force on the side to move.

A window is six cells in a row, column or diagonal; filling one makes six in a row (longer
lines win too). A side threatens a window when at least four of its cells hold the side's
stones and none the opponent's: its two stones of the next turn fill it. In that order:

1. A six this turn: the cells of the windows the mover can fill with the stones it has left.
2. A block: where the opponent threatens, the cells after which the mover's stones left this
   turn still reach every threatened window. None where one stone anywhere later still does,
   or where nothing does (the game is lost against best play).
3. A six next turn: where the opponent threatens nothing (so it cannot win first), the stones
   this turn that leave more threats than two opponent stones can reach (in Numba: it is
   tried for every pair of cells on every move the agent makes).

Otherwise nothing is forced (None).
"""
from __future__ import annotations

import numpy as np
from numba import njit

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


def cell_windows(windows: np.ndarray, num_cells: int) -> np.ndarray:
    """int[cells, 4 * ROW]: the windows through each cell (at most ROW in each of four
    directions), padded with -1."""
    out = np.full((num_cells, 4 * ROW), -1, dtype=np.int64)
    fill = np.zeros(num_cells, dtype=np.int64)
    for w, line in enumerate(windows):
        for cell in line:
            out[cell, fill[cell]] = w
            fill[cell] += 1
    return out


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
                 left: int) -> np.ndarray | None:
    """bool[cells] (see the module docstring), or None; `left` stones this turn; `through`
    is cell_windows(windows)."""
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
    forced = _unblockable_cells(windows, through, board.astype(np.int64), mover, left)
    return forced if forced.any() else None


# ------------------------------------------------------- rule 3 in Numba (window counts)


@njit(cache=True)
def _place(board, counts, through, cell, side, delta):
    """Put (delta 1) or take back (delta -1) a stone of `side` on `cell`."""
    board[cell] = side if delta > 0 else EMPTY
    for w in through[cell]:
        if w < 0:
            break
        counts[side, w] += delta


@njit(cache=True)
def _reaches(windows, threats, a, b):
    """Whether stones on cells a and b (b may be -1) reach every threatened window."""
    for w in threats:
        hit = False
        for cell in windows[w]:
            if cell == a or cell == b:
                hit = True
                break
        if not hit:
            return False
    return True


@njit(cache=True)
def _unblockable(windows, board, counts, side):
    """Whether two stones cannot reach every window `side` threatens."""
    threats = np.flatnonzero((counts[side] >= THREAT) & (counts[3 - side] == 0))
    cells = np.unique(np.array([c for w in threats for c in windows[w] if board[c] == EMPTY]))
    for i in range(cells.size):
        for j in range(i, cells.size):  # j == i: one stone on cells[i], the other anywhere
            if _reaches(windows, threats, cells[i], cells[j]):
                return False
    return threats.size > 0


@njit(cache=True)
def _unblockable_cells(windows, through, board, side, stones):
    """bool[cells]: every cell of every placement of `stones` (1 or 2) stones of `side` after
    which two opponent stones cannot reach all of its threats."""
    counts = np.zeros((3, windows.shape[0]), dtype=np.int64)
    for w in range(windows.shape[0]):
        for cell in windows[w]:
            counts[board[cell], w] += 1
    growing = np.zeros(board.size, dtype=np.bool_)  # cells of windows these stones can fill to four
    for w in range(windows.shape[0]):
        if counts[side, w] >= THREAT - stones and counts[3 - side, w] == 0:
            for cell in windows[w]:
                growing[cell] = board[cell] == EMPTY
    cells = np.flatnonzero(growing)
    out = np.zeros(board.size, dtype=np.bool_)
    for i in range(cells.size):
        _place(board, counts, through, cells[i], side, 1)
        if stones == 1:
            out[cells[i]] = _unblockable(windows, board, counts, side)
        for j in range(i + 1, cells.size if stones == 2 else 0):
            _place(board, counts, through, cells[j], side, 1)
            if _unblockable(windows, board, counts, side):
                out[cells[i]] = out[cells[j]] = True
            _place(board, counts, through, cells[j], side, -1)
        _place(board, counts, through, cells[i], side, -1)
    return out
