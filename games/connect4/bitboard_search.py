"""The Numba kernels of the classic Connect-4 solver (games.connect4.solver): bitboard negamax."""
from __future__ import annotations

import numpy as np
from numba import njit

from games.core.connect4_stage_sets import ILLEGAL_MOVE_SCORE  # move_scores' value for a full column

# geometry array slots
ROWS, COLS, HEIGHT, CELLS, BOTTOM, BOARD = range(6)
# stats array slots
NODES, LIMIT, ABORTED = range(3)
# move_lists [cells + 1, 2, cols]: row d lists the moves at d stones (MOVES), best first, and
# their ordering scores (SCORES)
MOVES, SCORES = range(2)
NO_LIMIT = 1 << 62
# Transposition table entry: (key // table size) << 9 | kind << 7 | (score + SCORE_BIAS). The
# slot is key % table size, so the quotient identifies the key. One int64 per entry: a probe
# is one memory access, and the table is 8 bytes per entry.
EMPTY, UPPER, LOWER = 0, 1, 2  # kinds; an all-zero entry is empty
KIND_SHIFT, QUOTIENT_SHIFT = 7, 9
SCORE_BIAS = 64  # scores lie within -32..32 on boards of at most 63 bits


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
def _order_moves(current, mask, candidates, stones, geo, order, move_lists):
    """Write the moves in `candidates` to row `stones` of `move_lists`, the move creating the
    most threats first; ties keep the centre-first `order`. Returns how many there are."""
    count = 0
    for i in range(order.size):
        move = candidates & _column_cells(order[i], geo)
        if move == 0:
            continue
        threats = _popcount(winning_cells(current | move, mask | move, geo))
        insert_by_score(move_lists, stones, count, move, threats)
        count += 1
    return count


@njit(cache=True, inline="always")
def insert_by_score(move_lists, row, count, move, score):
    """Insert `move` among the `count` moves of row `row`, kept by descending score; among
    equal scores, earlier insertions first."""
    slot = count
    while slot > 0 and move_lists[row, SCORES, slot - 1] < score:
        move_lists[row, MOVES, slot] = move_lists[row, MOVES, slot - 1]
        move_lists[row, SCORES, slot] = move_lists[row, SCORES, slot - 1]
        slot -= 1
    move_lists[row, MOVES, slot] = move
    move_lists[row, SCORES, slot] = score


@njit(cache=True, inline="always")
def _entry(quotient, kind, score):
    return (quotient << QUOTIENT_SHIFT) | (kind << KIND_SHIFT) | (score + SCORE_BIAS)


@njit(cache=True)
def _negamax(current, mask, stones, alpha, beta, geo, order, table, move_lists, stats):
    """Fail-hard alpha-beta: a result <= alpha is an upper bound of the score, >= beta a lower
    bound, in between exact. The side to move must not be able to win at once."""
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

    count = _order_moves(current, mask, candidates, stones, geo, order, move_lists)
    for i in range(count):
        move = move_lists[stones, MOVES, i]
        score = -_negamax(current ^ mask, mask | move, stones + 1, -beta, -alpha, geo, order,
                          table, move_lists, stats)
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
def _search(current, mask, stones, alpha, beta, geo, order, table, move_lists, stats):
    """_negamax, with the two cases it assumes away answered exactly: a full board and a win
    with the next stone."""
    cells = geo[CELLS]
    if stones == cells:
        return 0
    if _can_win_now(current, mask, geo):
        return (cells + 1 - stones) // 2
    return _negamax(current, mask, stones, alpha, beta, geo, order, table,
                    move_lists, stats)


@njit(cache=True, inline="always")
def _half_towards_zero(value):
    return -((-value) // 2) if value < 0 else value // 2


@njit(cache=True)
def solve(current, mask, stones, geo, order, table, move_lists, stats):
    """The exact score, narrowed by null-window searches (0 if the budget ran out)."""
    cells = geo[CELLS]
    if stones == cells:
        return 0
    if _can_win_now(current, mask, geo):
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
        result = _negamax(current, mask, stones, probe, probe + 1, geo, order, table,
                          move_lists, stats)
        if stats[ABORTED]:
            return 0
        if result <= probe:
            high = result
        else:
            low = result
    return low


@njit(cache=True)
def move_scores(current, mask, stones, geo, order, table, move_lists, stats, outcome_only,
                out):
    """Fill `out` with the exact score of every column (ILLEGAL_MOVE_SCORE for full ones),
    or with `outcome_only` just its sign (1 win, 0 draw, -1 loss)."""
    for col in range(geo[COLS]):
        out[col] = column_score(current, mask, stones, col, geo, order, table, move_lists,
                                stats, outcome_only)
        if stats[ABORTED]:
            return


@njit(cache=True)
def column_score(current, mask, stones, col, geo, order, table, move_lists, stats,
                 outcome_only):
    """The exact score of playing `col` (ILLEGAL_MOVE_SCORE if it is full), or with
    `outcome_only` its sign: one search with the window (-1, 1) proves that, far cheaper than
    the exact score early in the game. Meaningless once stats[ABORTED] is set."""
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
                        geo, order, table, move_lists, stats)
        return 1 if reply < 0 else (-1 if reply > 0 else 0)
    return -solve(current ^ mask, mask | move, stones + 1, geo, order, table, move_lists,
                  stats)


@njit(cache=True)
def optimal_flags(current, mask, stones, geo, order, table, move_lists, stats, out):
    """Set out[col] to 1 for the columns whose score equals the position's score, 0 otherwise.
    One full solve, then one null-window test per move: cheaper than every move's score."""
    best = solve(current, mask, stones, geo, order, table, move_lists, stats)
    if stats[ABORTED]:
        return
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
        reply = _search(current ^ mask, mask | move, stones + 1, -best, 1 - best, geo, order,
                        table, move_lists, stats)
        if stats[ABORTED]:
            return
        out[col] = 1 if reply <= -best else 0
