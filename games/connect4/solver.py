"""An exact solver for classic gravity Connect-4 (no forbidden cell), to measure how often an
agent plays a game-theoretically optimal move. The technique is Pascal Pons' well-known one.

Representation (bitboard)
  Column c owns bits c*H .. c*H+rows-1 (bottom first) with H = rows + 1; bit c*H+rows is a
  sentinel that is never set, so shifted lines cannot run from one column into the next. A
  position is two int64 masks: `current`, the stones of the side to move, and `mask`, all
  stones. Playing swaps sides with `current ^= mask` and drops a stone with
  `mask |= mask + bottom_of_column`. (rows+1)*cols <= 63, so the sign bit is never a cell and
  plain int64 arithmetic is safe; `current + mask` is a unique key of the position.

Score convention (Pons), always from the view of the side to move
  0 is a draw with best play on both sides. If the game is won by the n-th stone on the board
  (counting the winning stone) the winner scores (cells + 2 - n) // 2 and the loser the
  negative, cells = rows * cols. On boards with an even number of cells this is
  cells/2 + 1 - k, k being the number of stones the winner has played including the winning
  one: on 6 x 7 a win with one's 21st (last) stone scores 1, a win with one's 4th scores 18.
  Quick wins score high, slow losses score less negative. With m stones on the board the side
  to move can score at most (cells + 1 - m) // 2, by winning at once.

Search
  Negamax with alpha-beta over the bitboard, in Numba. Every node assumes the side to move
  cannot win at once (checked before the search and kept true by only playing moves that do
  not hand the opponent an immediate win: an opponent threat must be blocked, two threats
  lose, and the cell just under an opponent threat is never filled). Moves are tried by the
  number of threats they create, ties centre first. A transposition table (one int64 array,
  slot = key % prime size, always replace) stores key // size, which with the slot identifies
  the key exactly, and an upper or a lower bound of the score. It is kept between calls, as
  bounds hold whatever the root. The root score is narrowed by null-window searches
  (alpha, alpha + 1), probing near 0 first. A node budget aborts a search cleanly: an aborted
  call stores nothing it has not proved and returns None.
"""
from __future__ import annotations

import operator

import numpy as np
from numba import njit

ILLEGAL_MOVE_SCORE = -1000  # move_scores' value for a full column
UNPROVED = 2  # column_outcomes_on_board's value for a column not proved within the budget
MAX_BITS = 63  # (rows + 1) * cols must fit below the sign bit of an int64

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
MIN_TABLE_BITS = 10  # a smaller table would leave quotients too wide for the entry


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
def _winning_cells(position, mask, geo):
    """Empty cells (playable now or not) where the owner of `position` would complete four."""
    height = geo[HEIGHT]
    cells = (position << 1) & (position << 2) & (position << 3)  # three straight below
    cells |= _line_ends(position, height)  # horizontal
    cells |= _line_ends(position, height - 1)  # diagonal going down to the right
    cells |= _line_ends(position, height + 1)  # diagonal going up to the right
    return cells & (geo[BOARD] ^ mask)


def _has_four(position, height):
    """Whether `position` holds four in a row (columns of `height` bits, as the module says)."""
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
    return (_winning_cells(current, mask, geo) & _playable_cells(mask, geo)) != 0


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
    opponent_wins = _winning_cells(current ^ mask, mask, geo)
    forced = playable & opponent_wins
    if forced:
        if forced & (forced - 1):
            return 0  # two threats: only one can be blocked
        playable = forced
    return playable & ~(opponent_wins >> 1)  # the cell under a threat would open it


# ----------------------------------------------------------------------------- search

@njit(cache=True)
def _order_moves(current, mask, candidates, stones, geo, order, move_buf, score_buf):
    """Write the moves in `candidates` to row `stones` of the buffers, the move creating the
    most threats first; ties keep the centre-first `order`. Returns how many there are."""
    count = 0
    for i in range(order.size):
        move = candidates & _column_cells(order[i], geo)
        if move == 0:
            continue
        threats = _popcount(_winning_cells(current | move, mask | move, geo))
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
def _negamax(current, mask, stones, alpha, beta, geo, order, table, move_buf, score_buf,
             stats):
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

    count = _order_moves(current, mask, candidates, stones, geo, order, move_buf, score_buf)
    for i in range(count):
        move = move_buf[stones, i]
        score = -_negamax(current ^ mask, mask | move, stones + 1, -beta, -alpha, geo, order,
                          table, move_buf, score_buf, stats)
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
def _search(current, mask, stones, alpha, beta, geo, order, table, move_buf, score_buf,
            stats):
    """_negamax, with the two cases it assumes away answered exactly: a full board and a win
    with the next stone."""
    cells = geo[CELLS]
    if stones == cells:
        return 0
    if _can_win_now(current, mask, geo):
        return (cells + 1 - stones) // 2
    return _negamax(current, mask, stones, alpha, beta, geo, order, table,
                    move_buf, score_buf, stats)


@njit(cache=True, inline="always")
def _half_towards_zero(value):
    return -((-value) // 2) if value < 0 else value // 2


@njit(cache=True)
def _solve(current, mask, stones, geo, order, table, move_buf, score_buf, stats):
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
                          move_buf, score_buf, stats)
        if stats[ABORTED]:
            return 0
        if result <= probe:
            high = result
        else:
            low = result
    return low


@njit(cache=True)
def _move_scores(current, mask, stones, geo, order, table, move_buf, score_buf,
                 stats, outcome_only, out):
    """Fill `out` with the exact score of every column (ILLEGAL_MOVE_SCORE for full ones),
    or with `outcome_only` just its sign (1 win, 0 draw, -1 loss)."""
    for col in range(geo[COLS]):
        out[col] = _column_score(current, mask, stones, col, geo, order, table, move_buf,
                                 score_buf, stats, outcome_only)
        if stats[ABORTED]:
            return


@njit(cache=True)
def _column_score(current, mask, stones, col, geo, order, table, move_buf, score_buf,
                  stats, outcome_only):
    """The exact score of playing `col` (ILLEGAL_MOVE_SCORE if it is full), or with
    `outcome_only` its sign: one search with the window (-1, 1) proves that, far cheaper than
    the exact score early in the game. Meaningless once stats[ABORTED] is set."""
    cells = geo[CELLS]
    if mask & _top_cell(col, geo):
        return ILLEGAL_MOVE_SCORE
    move = (mask + (1 << (col * geo[HEIGHT]))) & _column_cells(col, geo)
    if move & _winning_cells(current, mask, geo):
        return 1 if outcome_only else (cells + 1 - stones) // 2
    if outcome_only:
        # np.int64: a literal argument would compile a second version of the recursive
        # search, which Numba's cache then loads wrongly (numba issue 6713: a segfault).
        reply = _search(current ^ mask, mask | move, stones + 1, np.int64(-1), np.int64(1),
                        geo, order, table, move_buf, score_buf, stats)
        return 1 if reply < 0 else (-1 if reply > 0 else 0)
    return -_solve(current ^ mask, mask | move, stones + 1, geo, order, table, move_buf,
                   score_buf, stats)


@njit(cache=True)
def _optimal_flags(current, mask, stones, geo, order, table, move_buf, score_buf,
                   stats, out):
    """Set out[col] to 1 for the columns whose score equals the position's score, 0 otherwise.
    One full solve, then one null-window test per move: cheaper than every move's score."""
    best = _solve(current, mask, stones, geo, order, table, move_buf, score_buf,
                  stats)
    if stats[ABORTED]:
        return
    cells = geo[CELLS]
    threats = _winning_cells(current, mask, geo)
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
                        table, move_buf, score_buf, stats)
        if stats[ABORTED]:
            return
        out[col] = 1 if reply <= -best else 0


# ----------------------------------------------------------------------------- Python API

def _prime_at_most(limit):
    """The largest prime <= limit (a prime size spreads keys over the whole table)."""
    candidate = limit
    while candidate > 2:
        if candidate % 2 and all(candidate % d for d in range(3, int(candidate ** 0.5) + 1, 2)):
            return candidate
        candidate -= 1
    return 2


def check_stone_counts(first: int, second: int, cells: int) -> None:
    """Raise ValueError unless a game alternating from the first player, not yet over by a
    full board of `cells` cells, leaves `first` and `second` stones."""
    if first - second not in (0, 1):
        raise ValueError(f"the first player has {first} stones and the second {second}; "
                         "no game alternating from the first player reaches that.")
    if first + second == cells:
        raise ValueError("the game is already over: the board is full.")


def centre_first(cols):
    """Columns ordered by distance from the centre: for 7 columns 3, 2, 4, 1, 5, 0, 6."""
    order = sorted(range(cols), key=lambda col: (abs(2 * col - (cols - 1)), col))
    return np.array(order, dtype=np.int64)


class Connect4Solver:
    """Exact scores of classic Connect-4 positions on a rows x cols board (no forbidden cell).

    Positions are given as the list of 0-based columns played so far, first player first,
    or (`move_scores_on_board`) as the board they lead to.
    Scores follow Pons' convention from the view of the side to move (see the module
    docstring): 0 draw, (cells + 2 - n) // 2 for a win by the n-th stone, negative for a loss.
    The transposition table (8 * 2**table_bits bytes) is kept across calls, so related
    positions solve faster one after another. `last_nodes` counts the nodes searched by the
    last call.
    """

    def __init__(self, rows: int = 6, cols: int = 7, table_bits: int = 23):
        if rows < 1 or cols < 1 or (rows + 1) * cols > MAX_BITS:
            raise ValueError(f"a {rows} x {cols} board needs (rows + 1) * cols <= {MAX_BITS}.")
        if not MIN_TABLE_BITS <= table_bits <= 32:
            raise ValueError(f"table_bits must be in {MIN_TABLE_BITS}..32, not {table_bits}.")
        self.rows, self.cols, self.cells = rows, cols, rows * cols
        height = rows + 1
        bottom = sum(1 << (col * height) for col in range(cols))
        board = bottom * ((1 << rows) - 1)
        self._geo = np.array([rows, cols, height, self.cells, bottom, board], dtype=np.int64)
        self._order = centre_first(cols)
        size = _prime_at_most(1 << table_bits)
        self._table = np.zeros(size, dtype=np.int64)  # all entries EMPTY
        self._move_buf = np.zeros((self.cells + 1, cols), dtype=np.int64)
        self._score_buf = np.zeros((self.cells + 1, cols), dtype=np.int64)
        self._stats = np.zeros(3, dtype=np.int64)
        self.last_nodes = 0

    def clear_table(self) -> None:
        """Forget every stored bound (results never depend on it; only speed does)."""
        self._table[:] = 0

    def solve(self, moves) -> int:
        """The exact score of the position after `moves`, for the side to move.

        Raises ValueError if `moves` is not a legal sequence or the game is already over."""
        current, mask, stones = self._position(moves)
        self._start(None)
        score = _solve(current, mask, stones, *self._kernel_args())
        self.last_nodes = int(self._stats[NODES])
        return int(score)

    def move_scores(self, moves, node_limit: int | None = None,
                    outcome_only: bool = False) -> np.ndarray | None:
        """The exact score of every column after `moves`, for the side to move (who plays it),
        or with `outcome_only` its sign alone (1 win, 0 draw, -1 loss), much faster to prove.

        A move that wins at once gets its winning score; a full column gets
        ILLEGAL_MOVE_SCORE. With `node_limit`, returns None once more than that many nodes
        have been searched in this call. Raises ValueError like `solve`."""
        return self._scores(self._position(moves), node_limit, outcome_only)

    def move_scores_on_board(self, board: np.ndarray, node_limit: int | None = None,
                             outcome_only: bool = False) -> np.ndarray | None:
        """`move_scores` of the position drawn on `board`: int8 [rows, cols], row 0 the top,
        0 empty, 1 the first player's stone, 2 the second's (games.connect4.rules's `board`). The
        side to move is the one with fewer stones, the first player on equal counts. Raises
        ValueError if no legal game reaches the board or the game on it is over."""
        return self._scores(self._board_position(board), node_limit, outcome_only)

    def column_outcomes_on_board(self, board: np.ndarray, node_limit: int) -> np.ndarray:
        """Each column's outcome on `board` (drawn as `move_scores_on_board` takes it) for the
        side to move: 1 win, 0 draw, -1 loss, ILLEGAL_MOVE_SCORE for a full column, UNPROVED
        where its proof did not fit the budget. Unlike move_scores, which proves every column
        or returns nothing, each column keeps what was proved: early in the game a few proved
        wins or losses are still worth knowing.

        The `node_limit` nodes are shared: first each open column gets an equal share, centre
        first; then the columns still unproved get, in turn, whatever is left, so a column
        that needs more than its share can use what easier ones did not spend. (The table
        keeps what an unfinished proof did prove below its root, so a retry does not start
        over.)"""
        current, mask, stones = self._board_position(board)
        open_columns = [int(col) for col in self._order if board[0, col] == 0]
        outcomes = np.full(self.cols, ILLEGAL_MOVE_SCORE, dtype=np.int64)
        outcomes[open_columns] = UNPROVED
        self._start(node_limit)  # validates the budget
        spent, share = 0, node_limit // max(len(open_columns), 1)
        for first_pass in (True, False):
            for col in open_columns:
                budget = share if first_pass else node_limit - spent
                if outcomes[col] != UNPROVED or budget < 1:
                    continue
                self._start(budget)
                score = _column_score(current, mask, stones, col, *self._kernel_args(), True)
                spent += min(int(self._stats[NODES]), budget)
                if not self._stats[ABORTED]:
                    outcomes[col] = score
        self.last_nodes = spent
        return outcomes

    def _scores(self, position, node_limit, outcome_only):
        current, mask, stones = position
        self._start(node_limit)
        scores = np.empty(self.cols, dtype=np.int64)
        _move_scores(current, mask, stones, *self._kernel_args(), outcome_only, scores)
        return None if self._finish() else scores

    def optimal_moves(self, moves, node_limit: int | None = None) -> list[int] | None:
        """The columns whose score is the best after `moves`, ascending; None if `node_limit`
        nodes were not enough. Cheaper than move_scores: one solve, then one null-window
        test per move. Raises ValueError like `solve`."""
        current, mask, stones = self._position(moves)
        self._start(node_limit)
        flags = np.zeros(self.cols, dtype=np.int64)
        _optimal_flags(current, mask, stones, *self._kernel_args(), flags)
        if self._finish():
            return None
        return [int(col) for col in np.flatnonzero(flags)]

    # ------------------------------------------------------------------ internals

    def _kernel_args(self):
        return (self._geo, self._order, self._table, self._move_buf, self._score_buf,
                self._stats)

    def _start(self, node_limit):
        if node_limit is not None and node_limit < 1:
            raise ValueError(f"node_limit must be a positive number of nodes, not {node_limit}.")
        self._stats[:] = (0, NO_LIMIT if node_limit is None else node_limit, 0)

    def _finish(self):
        """Record the node count; True if the call ran out of nodes."""
        self.last_nodes = int(self._stats[NODES])
        return bool(self._stats[ABORTED])

    def _position(self, moves):
        """(current, mask, stones) after replaying `moves`, which must be legal and leave the
        game unfinished."""
        height, geo = self.rows + 1, self._geo
        current = mask = 0
        for index, move in enumerate(moves):
            try:
                col = operator.index(move)
            except TypeError:
                raise ValueError(f"move {index} is {move!r}, not a column number.") from None
            if not 0 <= col < self.cols:
                raise ValueError(f"move {index} is column {col}, outside 0..{self.cols - 1}.")
            if mask & (1 << (self.rows - 1 + col * height)):
                raise ValueError(f"move {index} is into column {col}, which is full.")
            cell = (mask + (1 << (col * height))) & ((1 << self.rows) - 1) << (col * height)
            if cell & _winning_cells(current, mask, geo):
                if index + 1 < len(moves):
                    raise ValueError(f"move {index + 1} comes after the game was won.")
                raise ValueError("the game is already over: the last move won.")
            current, mask = current ^ mask, mask | cell
        if len(moves) == self.cells:
            raise ValueError("the game is already over: the board is full.")
        return current, mask, len(moves)

    def _board_position(self, board):
        """(current, mask, stones) of a board drawn as `move_scores_on_board` takes it."""
        board = np.asarray(board)
        if board.shape != (self.rows, self.cols):
            raise ValueError(f"the board is {board.shape}, not {self.rows} x {self.cols}.")
        height = self.rows + 1
        players = [0, 0]
        for col in range(self.cols):
            column = board[::-1, col]  # bottom first
            filled = int(np.count_nonzero(column))
            if np.any(column[:filled] == 0) or np.any((column < 0) | (column > 2)):
                raise ValueError(f"column {col} has a gap under a stone or a value other "
                                 "than 0, 1 and 2.")
            for row in range(filled):
                players[column[row] - 1] |= 1 << (col * height + row)
        first, second = (bits.bit_count() for bits in players)
        for bits in players:
            if _has_four(bits, height):
                raise ValueError("the game is already over: the board holds four in a row.")
        check_stone_counts(first, second, self.cells)
        stones = first + second
        mover = players[stones & 1]
        return mover, players[0] | players[1], stones
