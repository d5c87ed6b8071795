"""Proves wins and losses in gravity Connect-4 on every board the course rules allow (4..12
rows and columns, an optional forbidden cell), within a node budget. games.connect4.solver
solves classic boards exactly and fast, but its one-word bitboard holds at most 63 bits; a
12 x 12 board has 156. This one works on the line masks of games.connect4.rules instead, and asks
only what a move rule needs: does this column win by force, does it lose by force.

Values are outcomes from the view of the side to move: 1 win, 0 draw, -1 loss (no margin).

Search
  Negamax with fail-hard alpha-beta over per-player line masks (a row, column, and two
  diagonal masks through every cell, as in games.connect4.rules, so "does a stone here make four"
  is one test on four masks). Every node assumes the side to move cannot win at once; its
  moves then block an opponent's immediate win (two lose), and never fill the cell under
  one. Moves creating the most new threats are tried first, ties centre first. A
  transposition table keyed by Zobrist hashes (a 64-bit key and a bound per slot, always
  replace) is kept between calls. A node budget aborts a search; an aborted search stores
  nothing it has not proved.

  A column is tested with two null-window searches, "does it win" and "does it lose", each
  cheap where the answer is a forcing line, far cheaper than the exact value of an open
  position, which no budget a move can afford proves on a large board.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# The game's own line masks and gravity, so the prover and the rules cannot disagree.
from games.connect4.rules import (ANTI_LINES, COL_LINES, DIAG_LINES, LINE_BLOCK, MAX_SIDE, _four_in_any,
                            _next_row)
from games.connect4.solver import centre_first, check_stone_counts, insert_by_score

WIN, DRAW, LOSS = 1, 0, -1
UNKNOWN = 2  # outcome not proved within the budget
ILLEGAL = -2  # a full column

# geometry array slots
ROWS, COLS, FORB_ROW, FORB_COL, CELLS = range(5)
# stats array slots
NODES, LIMIT, ABORTED = range(3)
NO_LIMIT = 1 << 62
# a table entry's bound: kind * 4 + (value + 1); 0 is an empty slot
EMPTY, UPPER, LOWER = 0, 1, 2
NEAR = 3  # threats are counted within this many cells of a new stone


# ----------------------------------------------------------------------------- board helpers

@njit(cache=True, inline="always")
def _wins_at(lines, player, row, col):
    """Whether `player` makes four by a stone on the empty cell (row, col)."""
    return _four_in_any(lines[player, row] | (1 << col),
                        lines[player, COL_LINES + col] | (1 << row),
                        lines[player, DIAG_LINES + row - col + MAX_SIDE - 1] | (1 << col),
                        lines[player, ANTI_LINES + row + col] | (1 << col))


@njit(cache=True, inline="always")
def _toggle(lines, player, row, col):
    """Put a stone of `player` on (row, col), or take it away."""
    lines[player, row] ^= 1 << col
    lines[player, COL_LINES + col] ^= 1 << row
    lines[player, DIAG_LINES + row - col + MAX_SIDE - 1] ^= 1 << col
    lines[player, ANTI_LINES + row + col] ^= 1 << col


@njit(cache=True, inline="always")
def _is_empty(row, col, heights, geo):
    """(row, col) is on the board, not forbidden, and empty: at or above its column's landing
    row (stones fill a column from the bottom, row 0 being the top)."""
    if row < 0 or row >= geo[ROWS] or col < 0 or col >= geo[COLS]:
        return False
    if row == geo[FORB_ROW] and col == geo[FORB_COL]:
        return False
    return row <= heights[col]


@njit(cache=True)
def _new_threats(lines, player, row, col, heights, geo):
    """Empty cells near the stone `player` has just put on (row, col) where `player` would
    now make four (cells farther away cannot have changed)."""
    count = 0
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for step in range(-NEAR, NEAR + 1):
            r, c = row + step * dr, col + step * dc
            if step != 0 and _is_empty(r, c, heights, geo) and _wins_at(lines, player, r, c):
                count += 1
    return count


@njit(cache=True)
def _immediate_wins(lines, player, heights, geo):
    """(how many columns win at once for `player`, counted up to 2; the last such column or
    -1): one is a threat to block, two cannot both be blocked."""
    count, last = 0, -1
    for col in range(geo[COLS]):
        row = heights[col]
        if row >= 0 and _wins_at(lines, player, row, col):
            count, last = count + 1, col
            if count == 2:
                break
    return count, last


# ----------------------------------------------------------------------------- search

@njit(cache=True)
def _order_moves(lines, side, stones, heights, geo, order, forced, move_buf, score_buf):
    """Write the side to move's sensible moves to row `stones` of the buffers, best first;
    returns how many. `forced` is the one column blocking the opponent's win, or -1."""
    other = 1 - side
    count = 0
    for i in range(order.size):
        col = order[i]
        row = heights[col]
        if row < 0 or (forced >= 0 and col != forced):
            continue
        above = _next_row(row, col, geo[FORB_ROW], geo[FORB_COL])
        if above >= 0 and _wins_at(lines, other, above, col):
            continue  # the opponent would win on the cell this stone opens
        _toggle(lines, side, row, col)
        heights[col] = above
        threats = _new_threats(lines, side, row, col, heights, geo)
        heights[col] = row
        _toggle(lines, side, row, col)
        insert_by_score(move_buf, score_buf, stones, count, col, threats)
        count += 1
    return count


@njit(cache=True)
def _negamax(lines, side, stones, key, alpha, beta, heights, geo, order, zobrist, keys,
             bounds, move_buf, score_buf, stats):
    """Fail-hard alpha-beta on outcomes: a result <= alpha is an upper bound, >= beta a lower
    bound, in between exact. The side to move must not be able to win at once."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return 0
    if stones == geo[CELLS]:
        return 0
    other = 1 - side
    threats, forced = _immediate_wins(lines, other, heights, geo)
    if threats == 2:
        return -1  # only one can be blocked
    slot = key & (keys.size - 1)
    if keys[slot] == key and bounds[slot] != EMPTY:
        kind, stored = bounds[slot] >> 2, (bounds[slot] & 3) - 1
        if kind == LOWER:
            alpha = max(alpha, stored)
        else:
            beta = min(beta, stored)
        if alpha >= beta:
            return alpha if kind == LOWER else beta
    count = _order_moves(lines, side, stones, heights, geo, order, forced, move_buf, score_buf)
    if count == 0:
        return -1  # every move lets the opponent win
    for i in range(count):
        col = move_buf[stones, i]
        row = heights[col]
        _toggle(lines, side, row, col)
        heights[col] = _next_row(row, col, geo[FORB_ROW], geo[FORB_COL])
        score = -_negamax(lines, other, stones + 1, key ^ zobrist[side, row, col], -beta, -alpha,
                          heights, geo, order, zobrist, keys, bounds, move_buf, score_buf, stats)
        heights[col] = row
        _toggle(lines, side, row, col)
        if stats[ABORTED]:
            return 0  # nothing below was proved: store nothing
        if score >= beta:
            keys[slot], bounds[slot] = key, LOWER * 4 + score + 1
            return score
        alpha = max(alpha, score)
    keys[slot], bounds[slot] = key, UPPER * 4 + alpha + 1
    return alpha


@njit(cache=True)
def _reply_value(lines, side, stones, key, alpha, beta, heights, geo, order, zobrist, keys,
                 bounds, move_buf, score_buf, stats):
    """_negamax for the side to move, with a win at once answered first."""
    if stones == geo[CELLS]:
        return 0
    if _immediate_wins(lines, side, heights, geo)[0]:
        return 1
    return _negamax(lines, side, stones, key, alpha, beta, heights, geo, order, zobrist, keys,
                    bounds, move_buf, score_buf, stats)


@njit(cache=True)
def _test_column(lines, side, stones, key, col, ask_win, heights, geo, order, zobrist, keys,
                 bounds, move_buf, score_buf, stats):
    """Whether playing `col` wins (`ask_win`) or loses for the side to move: 1 yes, 0 no,
    -1 not settled within stats[LIMIT] nodes. The column must be open and not win at once."""
    row = heights[col]
    _toggle(lines, side, row, col)
    heights[col] = _next_row(row, col, geo[FORB_ROW], geo[FORB_COL])
    # The reply's value v: the column wins when v <= -1, loses when v >= 1.
    alpha = np.int64(-1) if ask_win else np.int64(0)
    reply = _reply_value(lines, 1 - side, stones + 1, key ^ zobrist[side, row, col], alpha,
                         alpha + 1, heights, geo, order, zobrist, keys, bounds, move_buf,
                         score_buf, stats)
    heights[col] = row
    _toggle(lines, side, row, col)
    if stats[ABORTED]:
        return -1
    return int(reply <= -1) if ask_win else int(reply >= 1)


# ----------------------------------------------------------------------------- Python API

class Connect4Prover:
    """Proved outcomes of gravity Connect-4 positions on any board of up to 12 x 12 cells,
    with or without a forbidden cell.

    A position is a board (int8 [rows, cols], row 0 the top, 0 empty, 1 the first player's
    stone, 2 the second's: games.connect4.rules's `board`) and its forbidden cell (row, col) or
    None; the side to move is the one with fewer stones, the first player on equal counts.
    The transposition table (9 bytes * 2**table_bits) is kept across calls. `last_nodes`
    counts the nodes the last call searched.
    """

    def __init__(self, table_bits: int = 22):
        if not 10 <= table_bits <= 30:
            raise ValueError(f"table_bits must be in 10..30, not {table_bits}.")
        # Fixed keys: a position's slot, and so the search, is the same in every process. The
        # board's size and forbidden cell are part of a position's key: one table serves games
        # on many boards, where the same stones mean different positions.
        rng = np.random.default_rng(20261129)
        keys = lambda *shape: rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                           size=shape, dtype=np.int64)
        self._zobrist = keys(2, MAX_SIDE, MAX_SIDE)
        self._size_keys = keys(2, MAX_SIDE + 1)  # rows, cols
        self._forbidden_keys = keys(MAX_SIDE + 1, MAX_SIDE + 1)  # (row + 1, col + 1); [0, 0]: none
        self._keys = np.zeros(1 << table_bits, dtype=np.int64)
        self._bounds = np.zeros(1 << table_bits, dtype=np.int8)  # all EMPTY
        cells = MAX_SIDE * MAX_SIDE
        self._move_buf = np.zeros((cells + 1, MAX_SIDE), dtype=np.int64)
        self._score_buf = np.zeros((cells + 1, MAX_SIDE), dtype=np.int64)
        self._stats = np.zeros(3, dtype=np.int64)
        self.last_nodes = 0

    def clear_table(self) -> None:
        """Forget every stored bound: a call without a budget answers the same without them,
        one with a budget may prove less."""
        self._bounds[:] = EMPTY

    def column_outcomes(self, board: np.ndarray, forbidden=None, node_limit: int | None = None,
                        every_column: bool = False) -> np.ndarray:
        """Each column's outcome for the side to move: WIN, DRAW (proved neither to win nor
        to lose), LOSS, ILLEGAL (full) or UNKNOWN (not proved). `node_limit` is the budget of
        the whole call, shared evenly by its searches (two per column at most). The call
        stops at the first proved win (the other columns then stay UNKNOWN) unless
        `every_column`. Raises ValueError if the board is not a position of an unfinished
        game."""
        if node_limit is not None and node_limit < 1:
            raise ValueError(f"node_limit must be a positive number of nodes, not {node_limit}.")
        lines, side, stones, key, heights, geo = self._position(np.asarray(board), forbidden)
        cols = int(geo[COLS])
        out = np.where(heights[:cols] < 0, ILLEGAL, UNKNOWN).astype(np.int64)
        open_cols = [col for col in range(cols) if heights[col] >= 0]
        for col in open_cols:
            if _wins_at(lines, side, heights[col], col):
                out[col] = WIN
                if not every_column:
                    self.last_nodes = 0
                    return out
        limit = NO_LIMIT if node_limit is None else max(1, node_limit // (2 * len(open_cols)))
        kernel_args = (heights, geo, centre_first(cols), self._zobrist, self._keys,
                       self._bounds, self._move_buf, self._score_buf, self._stats)
        nodes = 0
        not_win = np.zeros(cols, dtype=bool)
        # "Does it win" for every column first (one forced win settles the move), then "does
        # it lose". Each search has its own budget: one hard column cannot starve the rest.
        for ask_win in (True, False):
            for col in open_cols:
                if out[col] != UNKNOWN:
                    continue
                self._stats[:] = (0, limit, 0)
                answer = _test_column(lines, side, stones, key, col, ask_win, *kernel_args)
                nodes += int(self._stats[NODES])
                if answer < 0:
                    continue
                if ask_win:
                    if answer:
                        out[col] = WIN
                        if not every_column:
                            self.last_nodes = nodes
                            return out
                    not_win[col] = True
                elif answer:
                    out[col] = LOSS
                elif not_win[col]:
                    out[col] = DRAW
        self.last_nodes = nodes
        return out

    def outcome(self, board: np.ndarray, forbidden=None) -> int:
        """The exact outcome of the position for the side to move (no budget: small boards
        and late positions only)."""
        outcomes = self.column_outcomes(board, forbidden, every_column=True)
        return int(outcomes[outcomes != ILLEGAL].max())

    def _position(self, board, forbidden):
        """(lines, side, stones, key, heights, geo) of a board as column_outcomes takes it."""
        if board.ndim != 2 or not all(4 <= side <= MAX_SIDE for side in board.shape):
            raise ValueError(f"the board must have 4 to {MAX_SIDE} rows and columns, not shape "
                             f"{board.shape}.")
        if np.any((board < 0) | (board > 2)):
            raise ValueError("board cells must be 0 (empty), 1 or 2 (the players' stones).")
        rows, cols = board.shape
        forb_row, forb_col = (-1, -1) if forbidden is None else (int(forbidden[0]), int(forbidden[1]))
        if forbidden is not None and not (0 <= forb_row < rows and 0 <= forb_col < cols
                                          and board[forb_row, forb_col] == 0):
            raise ValueError(f"the forbidden cell {tuple(forbidden)} must be an empty cell of "
                             "the board.")
        lines = np.zeros((2, LINE_BLOCK), dtype=np.int64)
        heights = np.full(MAX_SIDE, -1, dtype=np.int64)
        key = int(self._size_keys[0, rows] ^ self._size_keys[1, cols]
                  ^ self._forbidden_keys[forb_row + 1, forb_col + 1])
        for col in range(cols):
            landed = True  # every cell below this one holds a stone or is forbidden
            for row in range(rows - 1, -1, -1):
                stone = int(board[row, col])
                if (row, col) == (forb_row, forb_col):
                    continue
                if stone == 0:
                    if landed:
                        heights[col] = row
                    landed = False
                    continue
                if not landed:
                    raise ValueError(f"column {col} has a stone above an empty cell.")
                _toggle(lines, stone - 1, row, col)
                if _four_in_any(lines[stone - 1, row], lines[stone - 1, COL_LINES + col],
                                lines[stone - 1, DIAG_LINES + row - col + MAX_SIDE - 1],
                                lines[stone - 1, ANTI_LINES + row + col]):
                    raise ValueError("the game is already over: the board holds four in a row.")
                key ^= int(self._zobrist[stone - 1, row, col])
        first, second = int(np.count_nonzero(board == 1)), int(np.count_nonzero(board == 2))
        cells = rows * cols - (forbidden is not None)
        check_stone_counts(first, second, cells)
        geo = np.array([rows, cols, forb_row, forb_col, cells], dtype=np.int64)
        return lines, (first + second) & 1, first + second, np.int64(key), heights, geo
