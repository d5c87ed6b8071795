"""The Numba kernels of the classic Connect-4 solver (games.connect4.solver): bitboard negamax."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

ILLEGAL_MOVE_SCORE = -1000  # move_scores' value for a full column

# geometry array slots
ROWS, COLS, HEIGHT, CELLS, BOTTOM, BOARD = range(6)
# stats array slots
NODES, LIMIT, ABORTED = range(3)
NO_LIMIT = 1 << 62
# Transposition table entry: (key // table size) << 9 | kind << 7 | (score + SCORE_BIAS). The
# slot is key % table size, so the quotient identifies the key. One int64 per entry: a probe
# is one memory access, and the table is 8 bytes per entry.
EMPTY, UPPER, LOWER = 0, 1, 2  # kinds; an all-zero entry is empty
KIND_SHIFT, QUOTIENT_SHIFT = 7, 9
SCORE_BIAS = 64  # scores lie within -32..32 on boards of at most 63 bits


class Search(NamedTuple):
    """What every search kernel carries down the recursion unchanged: the board's shape and
    the memory the search writes. One argument where six were: Numba passes it the same way.

    geo        int64 [6]: ROWS, COLS, HEIGHT (bits per column), CELLS, BOTTOM, BOARD (masks)
    order      int64 [cols]: the columns, centre first (ties in move ordering)
    table      int64 [a prime]: the transposition table (entries as described above)
    move_buf   int64 [cells + 1, cols]: row d holds the moves at d stones, best first
    score_buf  int64 [cells + 1, cols]: their ordering scores
    stats      int64 [3]: NODES searched, the node LIMIT, ABORTED once it is passed
    """
    geo: np.ndarray
    order: np.ndarray
    table: np.ndarray
    move_buf: np.ndarray
    score_buf: np.ndarray
    stats: np.ndarray


# ----------------------------------------------------------------------------- bit helpers

@njit(cache=True, inline="always")
def _column_cells(col, geo):
    """The playable cells of column `col`."""
    return ((1 << geo[ROWS]) - 1) << (col * geo[HEIGHT])


@njit(cache=True, inline="always")
def _top_cell(col, geo):
    return 1 << (geo[ROWS] - 1 + col * geo[HEIGHT])


@njit(cache=True, inline="always")
def _line_ends(position, shift):
    """Cells that complete four along one direction (`shift` bits per step) for `position`."""
    pair = (position << shift) & (position << (2 * shift))
    ends = pair & (position << (3 * shift))  # three behind
    ends |= pair & (position >> shift)  # two behind, one ahead
    pair = (position >> shift) & (position >> (2 * shift))
    ends |= pair & (position << shift)  # one behind, two ahead
    ends |= pair & (position >> (3 * shift))  # three ahead
    return ends


@njit(cache=True)
def winning_cells(position, mask, geo):
    """Empty cells (playable now or not) where the owner of `position` would complete four."""
    height = geo[HEIGHT]
    cells = (position << 1) & (position << 2) & (position << 3)  # three straight below
    cells |= _line_ends(position, height)  # horizontal
    cells |= _line_ends(position, height - 1)  # diagonal going down to the right
    cells |= _line_ends(position, height + 1)  # diagonal going up to the right
    return cells & (geo[BOARD] ^ mask)


def has_four(position, height):
    """Whether `position` holds four in a row (columns of `height` bits, games.connect4.solver)."""
    for shift in (1, height, height - 1, height + 1):
        pairs = position & (position >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True, inline="always")
def _playable_cells(mask, geo):
    """The cell each non-full column would receive next."""
    return (mask + geo[BOTTOM]) & geo[BOARD]


@njit(cache=True, inline="always")
def _can_win_now(current, mask, geo):
    return (winning_cells(current, mask, geo) & _playable_cells(mask, geo)) != 0


@njit(cache=True, inline="always")
def _popcount(bits):
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def _non_losing_moves(current, mask, geo):
    """Playable cells that do not let the opponent win at once; 0 when every move loses.
    Assumes the side to move cannot win at once."""
    playable = _playable_cells(mask, geo)
    opponent_wins = winning_cells(current ^ mask, mask, geo)
    forced = playable & opponent_wins
    if forced:
        if forced & (forced - 1):
            return 0  # two threats: only one can be blocked
        playable = forced
    return playable & ~(opponent_wins >> 1)  # the cell under a threat would open it


# ----------------------------------------------------------------------------- search

@njit(cache=True)
def _order_moves(current, mask, candidates, stones, search):
    """Write the moves in `candidates` to row `stones` of the buffers, the move creating the
    most threats first; ties keep the centre-first order. Returns how many there are."""
    geo, order, move_buf, score_buf = search.geo, search.order, search.move_buf, search.score_buf
    count = 0
    for i in range(order.size):
        move = candidates & _column_cells(order[i], geo)
        if move == 0:
            continue
        threats = _popcount(winning_cells(current | move, mask | move, geo))
        insert_by_score(move_buf, score_buf, stones, count, move, threats)
        count += 1
    return count


@njit(cache=True, inline="always")
def insert_by_score(move_buf, score_buf, row, count, move, score):
    """Insert `move` among the `count` moves of row `row`, kept by descending score; among
    equal scores, earlier insertions first."""
    slot = count
    while slot > 0 and score_buf[row, slot - 1] < score:
        move_buf[row, slot] = move_buf[row, slot - 1]
        score_buf[row, slot] = score_buf[row, slot - 1]
        slot -= 1
    move_buf[row, slot] = move
    score_buf[row, slot] = score


@njit(cache=True, inline="always")
def _entry(quotient, kind, score):
    return (quotient << QUOTIENT_SHIFT) | (kind << KIND_SHIFT) | (score + SCORE_BIAS)


@njit(cache=True)
def _negamax(current, mask, stones, alpha, beta, search):
    """Fail-hard alpha-beta: a result <= alpha is an upper bound of the score, >= beta a lower
    bound, in between exact. The side to move must not be able to win at once."""
    geo, table, stats = search.geo, search.table, search.stats
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return 0
    cells = geo[CELLS]
    candidates = _non_losing_moves(current, mask, geo)
    if candidates == 0:
        return -((cells - stones) // 2)  # the opponent wins with the next stone
    if stones >= cells - 2:
        return 0  # neither of the last two stones can win (see _non_losing_moves)
    lowest = -((cells - 2 - stones) // 2)  # the opponent cannot win with the next stone
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return alpha
    highest = (cells - 1 - stones) // 2  # we cannot win with this stone
    key = current + mask
    quotient = key // table.size
    slot = key - quotient * table.size
    entry = table[slot]
    kind = (entry >> KIND_SHIFT) & 3
    if kind != EMPTY and entry >> QUOTIENT_SHIFT == quotient:
        stored = (entry & ((1 << KIND_SHIFT) - 1)) - SCORE_BIAS
        if kind == LOWER:
            if alpha < stored:
                alpha = stored
                if alpha >= beta:
                    return alpha
        elif highest > stored:
            highest = stored
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return beta

    count = _order_moves(current, mask, candidates, stones, search)
    for i in range(count):
        move = search.move_buf[stones, i]
        score = -_negamax(current ^ mask, mask | move, stones + 1, -beta, -alpha, search)
        if stats[ABORTED]:
            return 0  # nothing below was proved: store nothing
        if score >= beta:
            table[slot] = _entry(quotient, LOWER, score)
            return score
        if score > alpha:
            alpha = score
    table[slot] = _entry(quotient, UPPER, alpha)
    return alpha


@njit(cache=True)
def _search(current, mask, stones, alpha, beta, search):
    """_negamax, with the two cases it assumes away answered exactly: a full board and a win
    with the next stone."""
    cells = search.geo[CELLS]
    if stones == cells:
        return 0
    if _can_win_now(current, mask, search.geo):
        return (cells + 1 - stones) // 2
    return _negamax(current, mask, stones, alpha, beta, search)


@njit(cache=True, inline="always")
def _half_towards_zero(value):
    return -((-value) // 2) if value < 0 else value // 2


@njit(cache=True)
def solve(current, mask, stones, search):
    """The exact score, narrowed by null-window searches (0 if the budget ran out)."""
    cells = search.geo[CELLS]
    if stones == cells:
        return 0
    if _can_win_now(current, mask, search.geo):
        return (cells + 1 - stones) // 2
    low = -((cells - stones) // 2)
    high = (cells + 1 - stones) // 2
    while low < high:
        probe = low + (high - low) // 2
        # Probe closer to 0 first: most positions score near 0, and small bounds prove faster.
        if probe <= 0 and _half_towards_zero(low) < probe:
            probe = _half_towards_zero(low)
        elif probe >= 0 and high // 2 > probe:
            probe = high // 2
        result = _negamax(current, mask, stones, probe, probe + 1, search)
        if search.stats[ABORTED]:
            return 0
        if result <= probe:
            high = result
        else:
            low = result
    return low


@njit(cache=True)
def move_scores(current, mask, stones, search, outcome_only, out):
    """Fill `out` with the exact score of every column (ILLEGAL_MOVE_SCORE for full ones),
    or with `outcome_only` just its sign (1 win, 0 draw, -1 loss)."""
    for col in range(search.geo[COLS]):
        out[col] = column_score(current, mask, stones, col, search, outcome_only)
        if search.stats[ABORTED]:
            return


@njit(cache=True)
def column_score(current, mask, stones, col, search, outcome_only):
    """The exact score of playing `col` (ILLEGAL_MOVE_SCORE if it is full), or with
    `outcome_only` its sign: one search with the window (-1, 1) proves that, far cheaper than
    the exact score early in the game. Meaningless once stats[ABORTED] is set."""
    geo = search.geo
    cells = geo[CELLS]
    if mask & _top_cell(col, geo):
        return ILLEGAL_MOVE_SCORE
    move = (mask + (1 << (col * geo[HEIGHT]))) & _column_cells(col, geo)
    if move & winning_cells(current, mask, geo):
        return 1 if outcome_only else (cells + 1 - stones) // 2
    if outcome_only:
        # np.int64: a literal argument would compile a second version of the recursive
        # search, which Numba's cache then loads wrongly (Numba bug report #6713: a segfault).
        reply = _search(current ^ mask, mask | move, stones + 1, np.int64(-1), np.int64(1),
                        search)
        return 1 if reply < 0 else (-1 if reply > 0 else 0)
    return -solve(current ^ mask, mask | move, stones + 1, search)


@njit(cache=True)
def optimal_flags(current, mask, stones, search, out):
    """Set out[col] to 1 for the columns whose score equals the position's score, 0 otherwise.
    One full solve, then one null-window test per move: cheaper than every move's score."""
    best = solve(current, mask, stones, search)
    if search.stats[ABORTED]:
        return
    geo = search.geo
    cells = geo[CELLS]
    threats = winning_cells(current, mask, geo)
    for col in range(geo[COLS]):
        out[col] = 0
        if mask & _top_cell(col, geo):
            continue
        move = (mask + (1 << (col * geo[HEIGHT]))) & _column_cells(col, geo)
        if move & threats:
            out[col] = 1 if (cells + 1 - stones) // 2 == best else 0
            continue
        # The move reaches `best` exactly when the opponent's score is at most -best.
        reply = _search(current ^ mask, mask | move, stones + 1, -best, 1 - best, search)
        if search.stats[ABORTED]:
            return
        out[col] = 1 if reply <= -best else 0
