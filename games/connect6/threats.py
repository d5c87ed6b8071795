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
4. A win by double threats: where rule 3 finds nothing, the stones this turn that leave
   threats only both opponent stones can block, such that every such block leaves the
   opponent no threat of its own and the mover a win by rule 3 or 4 again, within
   THREAT_TURNS of the mover's turns (the quickest win first): a small threat-space search,
   which finds wins the network's search misses against a defender that answers threats.

Otherwise nothing is forced (None).

Rules 3 and 4 run in Numba over counts of each window's stones (one compiled copy of the
search per depth, each calling the next shallower one: Numba's disk cache crashes on a
recursive function, Numba bug report #6061, and these copies cache), on every move the agent
makes: about 1 ms a position on average on 10x10, at most four budgets of PLACEMENT_BUDGET
pairs (about 0.15 s; `docs/results.md`). They try pairs of stones on the cells of windows
that two stones fill to four; a win needing a stone elsewhere (one that takes a cell the
opponent's counter-threat would need) is not found, so they may force nothing where a win
exists, but every cell they name wins. For the turn's second stone they search the same
pairs on the board without the first stone, keeping those that hold it: the win that named
the first stone's cell is found again, whatever the budget.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit

from games.core.specialize import bound_copy
from games.core.stone_board import EMPTY

ROW = 6  # a window's length
THREAT = 4  # stones in a window that two more fill
THREAT_TURNS = 4  # rule 4 looks this many of the mover's turns ahead (rule 3 alone: 1)
PLACEMENT_BUDGET = 50_000  # pairs rules 3 and 4 try per call at most (about 40 ms)


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
                 left: int, first: int = -1) -> np.ndarray | None:
    """bool[cells] (see the module docstring), or None; `left` stones this turn, `first` the
    cell of the turn's first stone when one is down (else -1); `through` is
    cell_windows(windows)."""
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
    if left == 1 and first < 0:
        return None  # the opening stone: nothing to build on
    if first >= 0:  # the second stone: the pairs the first stone's search tried, with it
        board = board.copy()
        board[first] = EMPTY
    for turns in range(1, THREAT_TURNS + 1):  # the quickest win first
        forced = winning_cells(windows, through, board, mover, turns, with_cell=first)
        if forced.any():
            if first >= 0:
                forced[first] = False
            return forced
    return None


# ------------------------------------------- rules 3 and 4 in Numba (window counts)


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
def _threat_windows(counts, side):
    return np.flatnonzero((counts[side] >= THREAT) & (counts[3 - side] == 0))


@njit(cache=True)
def _threat_cells(windows, board, threats):
    """The empty cells of the windows `threats`."""
    cells = np.zeros(board.size, dtype=np.bool_)
    for w in threats:
        for cell in windows[w]:
            cells[cell] = board[cell] == EMPTY
    return np.flatnonzero(cells)


@njit(cache=True)
def _stones_to_block(windows, threats, cells):
    """How many opponent stones it takes to reach every window of `threats` (whose empty
    cells are `cells`): 0, 1, 2, or 3 for more than two."""
    if threats.size == 0:
        return 0
    for i in range(cells.size):
        if _reaches(windows, threats, cells[i], -1):
            return 1
    for i in range(cells.size):
        for j in range(i + 1, cells.size):
            if _reaches(windows, threats, cells[i], cells[j]):
                return 2
    return 3


def _winning_cells(windows, through, board, counts, side, turns, with_cell, budget, out):
    """Whether some pair of stones of `side`, whose opponent threatens nothing, wins within
    `turns` turns of `side` whatever the opponent does: it leaves more threats than two
    stones can block (rule 3), or, with turns to spare, threats that take both opponent
    stones to block, where every such block leaves the opponent no threat of its own and
    `side` a win again (rule 4). Pairs are tried on the cells of windows that two stones
    fill to four, in one order; with `with_cell` >= 0 only the pairs that hold that cell.
    With `out` non-empty, marks every cell of every winning pair there; else returns at the
    first. budget[0] counts the pairs left to try; once spent, nothing more is proven (a
    win found stays proven). A template: `_searches` compiles it once per depth, with
    `_shallower` the search a turn shallower."""
    opponent = 3 - side
    growing = np.zeros(board.size, dtype=np.bool_)
    for w in range(windows.shape[0]):
        if counts[side, w] >= THREAT - 2 and counts[opponent, w] == 0:
            for cell in windows[w]:
                growing[cell] = board[cell] == EMPTY
    if with_cell >= 0:
        growing[with_cell] = True
    cells = np.flatnonzero(growing)
    no_cells = np.zeros(0, dtype=np.bool_)
    found = False
    for i in range(cells.size):
        for j in range(i + 1, cells.size):
            if with_cell >= 0 and cells[i] != with_cell and cells[j] != with_cell:
                continue
            if budget[0] <= 0:
                return found
            budget[0] -= 1
            _place(board, counts, through, cells[i], side, 1)
            _place(board, counts, through, cells[j], side, 1)
            threats = _threat_windows(counts, side)
            targets = _threat_cells(windows, board, threats)
            blockers = _stones_to_block(windows, threats, targets)
            won = blockers == 3
            if blockers == 2 and turns > 1:  # rule 4: every two-stone block must lose
                won = True
                for a in range(targets.size):
                    for b in range(a + 1, targets.size):
                        if not _reaches(windows, threats, targets[a], targets[b]):
                            continue
                        _place(board, counts, through, targets[a], opponent, 1)
                        _place(board, counts, through, targets[b], opponent, 1)
                        won = _threat_windows(counts, opponent).size == 0 and _shallower(
                            windows, through, board, counts, side, turns - 1, -1, budget,
                            no_cells)
                        _place(board, counts, through, targets[b], opponent, -1)
                        _place(board, counts, through, targets[a], opponent, -1)
                        if not won:
                            break  # one block that holds refutes the pair
                    if not won:
                        break
            _place(board, counts, through, cells[j], side, -1)
            _place(board, counts, through, cells[i], side, -1)
            if won:
                if out.size == 0:
                    return True
                found = out[cells[i]] = out[cells[j]] = True
    return found


@njit(cache=True)
def _no_shallower(windows, through, board, counts, side, turns, with_cell, budget, out):
    """The one-turn search's `_shallower`, which it never calls (turns > 1 is false)."""
    return False


@functools.cache
def _searches() -> list:
    """_winning_cells for 1 to THREAT_TURNS turns, each calling the one a turn shallower."""
    searches = [bound_copy(_winning_cells, {"_shallower": _no_shallower}, "turns1")]
    for turns in range(2, THREAT_TURNS + 1):
        searches.append(bound_copy(_winning_cells, {"_shallower": searches[-1]}, f"turns{turns}"))
    return searches


def compile_threat_search(windows: np.ndarray, through: np.ndarray) -> None:
    """Compile rules 3 and 4 now (a few seconds the first time; cached on disk after)."""
    for turns in range(1, THREAT_TURNS + 1):
        winning_cells(windows, through, np.zeros(through.shape[0], dtype=np.int64), 1, turns)


def winning_cells(windows: np.ndarray, through: np.ndarray, board: np.ndarray, side: int,
                  turns: int, with_cell: int = -1, budget: int = PLACEMENT_BUDGET) -> np.ndarray:
    """bool[cells]: every cell of every pair of stones of `side` (whose opponent threatens
    nothing; `board` flat, EMPTY / 1 / 2) that wins by threats within `turns` turns of
    `side`, only the pairs holding `with_cell` where it is >= 0 (_winning_cells), as far as
    `budget` pairs prove."""
    board = board.astype(np.int64)
    lines = board[windows]
    counts = np.stack([(lines == stone).sum(axis=1) for stone in (EMPTY, 1, 2)])
    out = np.zeros(board.size, dtype=np.bool_)
    _searches()[turns - 1](windows, through, board, counts, side, turns, with_cell,
                           np.array([budget]), out)
    return out
