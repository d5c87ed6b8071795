"""An exact Othello endgame solver for both rule sets of games.othello.rules, to judge how often a
player's endgame move keeps the exact result.

Value: the final disc difference (mover's discs minus the opponent's) under perfect play by
both sides, from the view of the side to move, with the game's own rules: a side without a
move passes, the game ends when neither side can move, and empty cells count for nobody (in
the course rules the four corners always stay empty).

Search: fail-soft negamax alpha-beta over the two bitboards (the mover's and the opponent's),
in Numba, reusing games.othello.bitboard's move generator and flip kernels. Far from the end, moves
are tried fastest-first (the fewest replies for the opponent), moves into a quadrant with an
odd number of playable empty cells before the others (parity: the last move in a region is
worth having), and the move that was best at this position before goes first. A
transposition table keeps a lower and an upper bound of each position's value with the full
position as key, so a probe never confuses two positions; it is kept between calls, since
bounds hold whatever the root. Near the end, moves are tried in board order without the
table (sorting and probing cost more than they save there).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from games.core.base import ONGOING
from games.othello.bitboard import CELLS, U1, flips_of, legal_cells, popcount, rule_masks
from games.othello.rules import BLACK, PASS, RULES, STATUS, TO_MOVE, Othello

ILLEGAL = -1000  # move_values' value for an action that is not legal
WORST, BEST = -CELLS - 1, CELLS + 1  # outside every final disc difference
ORDER_EMPTIES = 6  # nodes with at least this many playable empty cells sort moves and use the table
NO_POSITION = np.uint64(0xFFFFFFFFFFFFFFFF)  # an empty table slot (both boards full: impossible)
HASH_OWN, HASH_OPP = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F)
QUADRANTS = np.array([0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000,
                      np.uint64(0xF0F0F0F000000000)], dtype=np.uint64)
PARITY_BONUS = 2  # in units of opponent moves: an odd-quadrant move sorts as 2 fewer replies
HASH_MOVE_FIRST = -1000
# Table columns (uint64[size, 3]): the two boards, then the bounds and the best move packed as
# (low + BIAS) | (high + BIAS) << 8 | (move + 1) << 16, all small non-negative numbers.
OWN, OPP, DATA = range(3)
BIAS = 128
# Work array (int64[2, 65, 64]): per count of empty cells, the ordered moves and their keys.
# Its last row holds the node counter.
MOVES, KEYS = range(2)
NODES = 0  # the column of work[MOVES, CELLS] that counts nodes


@njit(cache=True, inline="always")
def _slot(own, opp, shift):
    return np.int64((own * HASH_OWN ^ opp * HASH_OPP) >> shift)


@njit(cache=True, inline="always")
def _odd_quadrants(empty):
    """The cells of the quadrants holding an odd number of the `empty` cells."""
    odd = np.uint64(0)
    for q in range(4):
        if popcount(empty & QUADRANTS[q]) & 1:
            odd |= QUADRANTS[q]
    return odd


@njit(cache=True)
def _order(own, opp, moves, free, playable, hash_move, row, work):
    """Write `moves` to work[MOVES, row], best first by work[KEYS, row]; returns their count."""
    odd = _odd_quadrants(~(own | opp) & playable)
    count = 0
    while moves:
        square = np.int64(trailing_zeros(moves))
        bit = U1 << np.uint64(square)
        moves &= moves - U1
        flips = flips_of(own, opp, square)
        replies = popcount(legal_cells(opp & ~flips, own | bit | flips, free, playable))
        key = replies - (PARITY_BONUS if bit & odd else 0)
        if square == hash_move:
            key = HASH_MOVE_FIRST
        slot = count
        while slot > 0 and work[KEYS, row, slot - 1] > key:
            work[MOVES, row, slot] = work[MOVES, row, slot - 1]
            work[KEYS, row, slot] = work[KEYS, row, slot - 1]
            slot -= 1
        work[MOVES, row, slot] = square
        work[KEYS, row, slot] = key
        count += 1
    return count


@njit(cache=True, inline="always")
def _last_cell(own, opp, empty, free):
    """The value when `empty` is the one playable empty cell: the mover fills it if legal,
    else the opponent does if legal, else the game ends as it stands."""
    square = np.int64(trailing_zeros(empty))
    flips = flips_of(own, opp, square)
    if flips or empty & free:
        return popcount(own) - popcount(opp) + 1 + 2 * popcount(flips)
    flips = flips_of(opp, own, square)
    if flips or empty & free:
        return popcount(own) - popcount(opp) - 1 - 2 * popcount(flips)
    return popcount(own) - popcount(opp)


@njit(cache=True)
def _negamax(own, opp, alpha, beta, free, playable, shift, table, work):
    """Fail-soft alpha-beta: a result <= alpha is an upper bound of the value, >= beta a
    lower bound, in between exact."""
    work[MOVES, CELLS, NODES] += 1
    empty = ~(own | opp) & playable
    if empty == 0:
        return popcount(own) - popcount(opp)  # no cell left that either side could play
    if empty & (empty - U1) == 0:
        return _last_cell(own, opp, empty, free)
    moves = legal_cells(own, opp, free, playable)
    if moves == 0:
        if legal_cells(opp, own, free, playable) == 0:
            return popcount(own) - popcount(opp)  # neither side can move: the game is over
        return -_negamax(opp, own, -beta, -alpha, free, playable, shift, table, work)  # pass
    empties = popcount(empty)
    if empties < ORDER_EMPTIES:
        best = WORST
        while moves:
            square = np.int64(trailing_zeros(moves))
            moves &= moves - U1
            flips = flips_of(own, opp, square)
            value = -_negamax(opp & ~flips, own | (U1 << np.uint64(square)) | flips, -beta,
                              -alpha, free, playable, shift, table, work)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    slot = _slot(own, opp, shift)
    hash_move = -1
    low, high = WORST, BEST
    if table[slot, OWN] == own and table[slot, OPP] == opp:
        data = np.int64(table[slot, DATA])
        low, high = (data & 255) - BIAS, ((data >> 8) & 255) - BIAS
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha = max(alpha, low)
        beta = min(beta, high)
        hash_move = (data >> 16) - 1
    count = _order(own, opp, moves, free, playable, hash_move, empties, work)
    best, best_move = WORST, -1
    window_low = alpha
    for i in range(count):
        square = work[MOVES, empties, i]
        flips = flips_of(own, opp, square)
        value = -_negamax(opp & ~flips, own | (U1 << np.uint64(square)) | flips, -beta,
                          -alpha, free, playable, shift, table, work)
        if value > best:
            best, best_move = value, square
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    # The window here was (window_low, beta), narrowed by what the table knew: both the old
    # and the new bound hold, so the entry keeps the tighter of each.
    if best <= window_low:
        high = min(high, best)
    elif best >= beta:
        low = max(low, best)
    else:
        low = high = best
    table[slot, OWN], table[slot, OPP] = own, opp
    table[slot, DATA] = np.uint64((low + BIAS) | ((high + BIAS) << 8) | ((best_move + 1) << 16))
    return best


@njit(cache=True)
def _move_values(own, opp, free, playable, shift, table, work, out):
    """Fill out[action] with each legal action's exact value for the mover (ILLEGAL
    elsewhere)."""
    out[:] = ILLEGAL
    # np.int64: a literal argument would compile a second version of the recursive search,
    # which Numba's cache then loads wrongly (Numba bug report #6713: a segfault).
    worst, best = np.int64(WORST), np.int64(BEST)
    moves = legal_cells(own, opp, free, playable)
    if moves == 0:
        out[PASS] = -_negamax(opp, own, worst, best, free, playable, shift, table, work)
    while moves:
        square = np.int64(trailing_zeros(moves))
        moves &= moves - U1
        flips = flips_of(own, opp, square)
        out[square] = -_negamax(opp & ~flips, own | (U1 << np.uint64(square)) | flips, worst,
                                best, free, playable, shift, table, work)


@njit(cache=True)
def _best_move(own, opp, free, playable, shift, table, work):
    """(a best action, its exact value) for the mover, in about one solve's time: the root's
    moves are searched best-first, each with a window that starts above the best so far, so
    a worse move only proves that it is worse."""
    lowest, highest = np.int64(WORST), np.int64(BEST)  # np.int64: see _move_values
    moves = legal_cells(own, opp, free, playable)
    if moves == 0:
        return np.int64(PASS), -_negamax(opp, own, lowest, highest, free, playable, shift, table,
                                         work)
    empties = popcount(~(own | opp) & playable)
    count = _order(own, opp, moves, free, playable, np.int64(-1), empties, work)
    alpha, action = lowest, np.int64(-1)
    for i in range(count):
        square = work[MOVES, empties, i]
        flips = flips_of(own, opp, square)
        value = -_negamax(opp & ~flips, own | (U1 << np.uint64(square)) | flips, -highest,
                          -alpha, free, playable, shift, table, work)
        if value > alpha:  # exact: the window had no upper end
            alpha, action = value, square
    return action, alpha


class OthelloSolver:
    """Exact endgame values of positions of one Othello game (course or standard rules).

    Values are final disc differences for the side to move under perfect play (see the module
    docstring). The time grows about tenfold every three or four more empty cells: a few
    milliseconds at 10, most under a second at 14 (docs/results.md). The transposition table
    (24 bytes times 2**table_bits) is kept across calls. `last_nodes` counts the nodes
    searched by the last call.
    """

    def __init__(self, game: Othello, table_bits: int = 20):
        if not isinstance(game, Othello):
            raise ValueError(f"the Othello solver needs an Othello game, not {game.name}.")
        if not 8 <= table_bits <= 30:
            raise ValueError(f"table_bits must be in 8..30, not {table_bits}.")
        self.game = game
        self._free, self._playable = (np.uint64(mask) for mask in rule_masks(game.rule_code))
        self._shift = np.uint64(64 - table_bits)
        self._table = np.full((1 << table_bits, 3), NO_POSITION, dtype=np.uint64)
        self._work = np.zeros((2, CELLS + 1, CELLS), dtype=np.int64)
        self.last_nodes = 0

    def solve(self, state: np.ndarray) -> int:
        """The exact value of `state` for its side to move (its final disc difference from
        that side's view if the game is over)."""
        own, opp = self._sides(state)
        self._start()
        value = _negamax(own, opp, WORST, BEST, *self._kernel_args())
        self._finish()
        return int(value)

    def move_values(self, state: np.ndarray) -> np.ndarray:
        """int64[65]: the exact value of each legal action (a pass when it is the only one)
        for the side to move, who plays it; ILLEGAL for the other actions. Raises ValueError
        if the game is over."""
        if state[STATUS] != ONGOING:
            raise ValueError("the game is over: there is no move to value.")
        own, opp = self._sides(state)
        self._start()
        out = np.empty(CELLS + 1, dtype=np.int64)
        _move_values(own, opp, *self._kernel_args(), out)
        self._finish()
        return out

    def best_move(self, state: np.ndarray) -> tuple[int, int]:
        """(a best action for the side to move, its exact value), much faster than
        move_values, which values every move exactly. Raises ValueError if the game is over."""
        if state[STATUS] != ONGOING:
            raise ValueError("the game is over: there is no move to choose.")
        own, opp = self._sides(state)
        self._start()
        action, value = _best_move(own, opp, *self._kernel_args())
        self._finish()
        return int(action), int(value)

    def _start(self) -> None:
        self._work[MOVES, CELLS, NODES] = 0

    def _finish(self) -> None:
        self.last_nodes = int(self._work[MOVES, CELLS, NODES])

    def _kernel_args(self):
        return self._free, self._playable, self._shift, self._table, self._work

    def _sides(self, state):
        """(mover's discs, opponent's discs) as uint64, after checking the state fits."""
        state = np.asarray(state)
        if state.shape != (self.game.state_size,) or state.dtype != np.int64:
            raise ValueError(f"an Othello state is int64[{self.game.state_size}], "
                             f"not {state.dtype}{list(state.shape)}.")
        if state[RULES] != self.game.rule_code:
            raise ValueError(f"this solver plays the {self.game.rules} rules, and the "
                             f"position is from the other rule set.")
        black, white = state[BLACK:BLACK + 2].view(np.uint64)
        return (black, white) if state[TO_MOVE] == 0 else (white, black)
