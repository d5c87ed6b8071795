"""Connect6's forcing wins, found by a threat-space search in Numba.

A side threatens a window (six cells in a line) when at least four of its cells hold its
stones and none the opponent's. After the mover's stones, the opponent must reach every
threatened window with its two stones, or the mover fills one next turn. So the mover wins
by force when its stones leave threats that:

- depth 0: two opponent stones cannot all reach (a six next turn);
- depth d: exactly two stones reach, and after every pair of opponent stones that reaches
  them all, the opponent threatens nothing (it could win first) and the mover again wins
  by force at depth d - 1.

The opponent's only replies that matter are the pairs that reach every threat (any other
loses at once), and it cannot make six in reply while it threatens nothing, so each found
line is a proof. The search is not complete: lines where the mover must also answer an
opponent threat are not tried.
"""
from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = 0
THREAT = 4  # stones in a window that two more fill
TWO = np.int64(2)  # a whole turn's stones, typed as the recursion's argument: Numba's cache
                   # crashes on a recursive call whose argument types differ (numba#6713)


def cell_windows(windows: np.ndarray, num_cells: int) -> np.ndarray:
    """int[cells, 24]: the windows through each cell, padded with -1."""
    out = np.full((num_cells, 24), -1, dtype=np.int64)
    fill = np.zeros(num_cells, dtype=np.int64)
    for w, line in enumerate(windows):
        for cell in line:
            out[cell, fill[cell]] = w
            fill[cell] += 1
    return out


@njit(cache=True)
def _place(board, counts, through, cell, side, delta):
    """Put (delta 1) or take back (delta -1) a stone of `side` on `cell`."""
    board[cell] = side if delta > 0 else EMPTY
    for w in through[cell]:
        if w < 0:
            break
        counts[side, w] += delta


@njit(cache=True)
def _threats(counts, side):
    """The windows `side` threatens."""
    out = np.empty(counts.shape[1], dtype=np.int64)
    n = 0
    for w in range(counts.shape[1]):
        if counts[side, w] >= THREAT and counts[3 - side, w] == 0:
            out[n] = w
            n += 1
    return out[:n]


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
def _blocks(windows, board, threats):
    """(stones needed to reach every threat: 0, 1, 2, or 3 for more than two; the pairs of
    cells that reach them all when exactly two are needed, int[n, 2])."""
    none = np.empty((0, 2), dtype=np.int64)
    if threats.size == 0:
        return 0, none
    cells = np.empty(2 * threats.size, dtype=np.int64)
    n = 0
    for w in threats:
        for cell in windows[w]:
            if board[cell] == EMPTY:
                seen = False
                for i in range(n):
                    if cells[i] == cell:
                        seen = True
                if not seen:
                    cells[n] = cell
                    n += 1
    for i in range(n):
        if _reaches(windows, threats, cells[i], -1):
            return 1, none
    pairs = np.empty((n * (n - 1) // 2, 2), dtype=np.int64)
    found = 0
    for i in range(n):
        for j in range(i + 1, n):
            if _reaches(windows, threats, cells[i], cells[j]):
                pairs[found, 0], pairs[found, 1] = cells[i], cells[j]
                found += 1
    return (2, pairs[:found]) if found else (3, none)


@njit(cache=True)
def _growing_cells(windows, board, counts, side, stones):
    """Empty cells of the windows that `stones` more stones of `side` turn into threats."""
    mark = np.zeros(board.size, dtype=np.bool_)
    for w in range(windows.shape[0]):
        if counts[side, w] >= THREAT - stones and counts[3 - side, w] == 0:
            for cell in windows[w]:
                if board[cell] == EMPTY:
                    mark[cell] = True
    return np.flatnonzero(mark)


@njit(cache=True)
def _placements(cells, stones):
    """int[n, 2]: each cell alone (one stone), or each pair of cells (two); -1 pads."""
    n = cells.size
    if stones == 1:
        out = np.full((n, 2), -1, dtype=np.int64)
        out[:, 0] = cells
        return out
    out = np.empty((n * (n - 1) // 2, 2), dtype=np.int64)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            out[k, 0], out[k, 1] = cells[i], cells[j]
            k += 1
    return out


@njit(cache=True)
def _play(board, counts, through, placement, side, delta):
    for cell in placement:
        if cell >= 0:
            _place(board, counts, through, cell, side, delta)


@njit(cache=True)
def _forcing_win(windows, board, counts, through, side, stones, depth):
    """The first placement of `stones` (1 or 2) stones of `side` that wins by force at
    `depth` or less (module docstring), shallowest first: int[2], -1 pads; [-1, -1] if none.
    Self-recursive only: Numba's cache cannot hold mutually recursive functions."""
    placements = _placements(_growing_cells(windows, board, counts, side, stones), stones)
    other = 3 - side
    for d in range(depth + 1):
        for p in range(placements.shape[0]):
            _play(board, counts, through, placements[p], side, 1)
            needed, replies = _blocks(windows, board, _threats(counts, side))
            wins = needed == 3 or (needed == 2 and d > 0)
            for r in range(replies.shape[0] if needed == 2 and d > 0 else 0):
                _play(board, counts, through, replies[r], other, 1)
                wins = _threats(counts, other).size == 0 and \
                    _forcing_win(windows, board, counts, through, side, TWO, d - 1)[0] >= 0
                _play(board, counts, through, replies[r], other, -1)
                if not wins:
                    break
            _play(board, counts, through, placements[p], side, -1)
            if wins:
                return placements[p].copy()
    return np.full(2, -1, dtype=np.int64)


@njit(cache=True)
def _counts(windows, board):
    counts = np.zeros((3, windows.shape[0]), dtype=np.int64)
    for w in range(windows.shape[0]):
        for cell in windows[w]:
            counts[board[cell], w] += 1
    return counts


@njit(cache=True)
def _winning_cells(windows, through, board, side, stones, depth):
    """bool[cells]: every cell of every placement that makes a six next turn unblockable;
    where there is none, the cells of the first placement that wins by force within
    `depth`."""
    board = board.copy()
    counts = _counts(windows, board)
    out = np.zeros(board.size, dtype=np.bool_)
    placements = _placements(_growing_cells(windows, board, counts, side, stones), stones)
    for p in range(placements.shape[0]):
        _play(board, counts, through, placements[p], side, 1)
        if _blocks(windows, board, _threats(counts, side))[0] == 3:
            for cell in placements[p]:
                if cell >= 0:
                    out[cell] = True
        _play(board, counts, through, placements[p], side, -1)
    if out.any() or depth == 0:
        return out
    for cell in _forcing_win(windows, board, counts, through, side, stones, depth):
        if cell >= 0:
            out[cell] = True
    return out


def forcing_win_cells(windows: np.ndarray, through: np.ndarray, board: np.ndarray, side: int,
                      stones: int, depth: int) -> np.ndarray:
    """bool[cells] (see _winning_cells) for `side` (1 or 2) with `stones` stones left this
    turn on `board` (flat, 0 empty / 1 / 2), where the opponent threatens nothing."""
    return _winning_cells(windows, through, board.astype(np.int64), side, stones, depth)
