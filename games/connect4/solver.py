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
  Negamax with alpha-beta over the bitboard, in Numba (games.connect4.bitboard_search).
  Every node assumes the side to move cannot win at once (checked before the search and
  kept true by only playing moves that do not hand the opponent an immediate win: an
  opponent threat must be blocked, two threats lose, and the cell just under an opponent
  threat is never filled). Moves are tried by the
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

import games.connect4.bitboard_search as kernels
from games.connect4.bitboard_search import ABORTED, NODES, NO_LIMIT
from games.connect4.bitboard_search import ILLEGAL_MOVE_SCORE  # noqa: F401 (move_scores' full column)

MAX_BITS = 63  # (rows + 1) * cols must fit below the sign bit of an int64
MIN_TABLE_BITS = 10  # a smaller table would leave quotients too wide for the entry


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
        self._move_lists = np.zeros((self.cells + 1, 2, cols), dtype=np.int64)
        self._stats = np.zeros(3, dtype=np.int64)
        self.last_nodes = 0

    def solve(self, moves) -> int:
        """The exact score of the position after `moves`, for the side to move.

        Raises ValueError if `moves` is not a legal sequence or the game is already over."""
        current, mask, stones = self._position(moves)
        self._start(None)
        score = kernels.solve(current, mask, stones, *self._kernel_args())
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

    def _scores(self, position, node_limit, outcome_only):
        current, mask, stones = position
        self._start(node_limit)
        scores = np.empty(self.cols, dtype=np.int64)
        kernels.move_scores(current, mask, stones, *self._kernel_args(), outcome_only, scores)
        return None if self._finish() else scores

    def optimal_moves(self, moves, node_limit: int | None = None) -> list[int] | None:
        """The columns whose score is the best after `moves`, ascending; None if `node_limit`
        nodes were not enough. Cheaper than move_scores: one solve, then one null-window
        test per move. Raises ValueError like `solve`."""
        current, mask, stones = self._position(moves)
        self._start(node_limit)
        flags = np.zeros(self.cols, dtype=np.int64)
        kernels.optimal_flags(current, mask, stones, *self._kernel_args(), flags)
        if self._finish():
            return None
        return [int(col) for col in np.flatnonzero(flags)]

    # ------------------------------------------------------------------ internals

    def _kernel_args(self):
        return self._geo, self._order, self._table, self._move_lists, self._stats

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
            if cell & kernels.winning_cells(current, mask, geo):
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
            if kernels.has_four(bits, height):
                raise ValueError("the game is already over: the board holds four in a row.")
        check_stone_counts(first, second, self.cells)
        stones = first + second
        mover = players[stones & 1]
        return mover, players[0] | players[1], stones
