"""Gomoku (free-style): Black first, one stone per turn; five or more in a row wins at once,
a full board is a draw. `exact_five=true` plays the standard rule instead: a line of six or
more (an overline) does not win, exactly five does.

Boards from 5x5 to 19x19: `size=N` (15 by default) or `rows=R cols=C` for a rectangle.
Action = row * cols + col, row 0 at the top; notation as Connect6 (games.core.stone_board).

State (int16): a header, then the padded board of games.core.stone_board. Header fields: rows,
cols, ply, status, the padded cell of the last stone (-1 before the first) and the
exact-five flag.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from games.core.base import (DRAW, ONGOING, GameError, KernelGame, Kernels, bool_param,
                             check_param_names, int_param)
from games.core.presentation import Presentation
from games.core.rng import rand_below
from games.core.stone_board import (BLACK, COLOUR_NAMES, EMPTY, U1, U2, U4, StoneBoard,
                               add_to_lines, board_symmetries, legal_cells, line_block,
                               padded_cell, run_through)

ROWS, COLS, PLY, STATUS, LAST, EXACT, BOARD = range(7)
NONE = -1
ROW_TO_WIN = 5
MIN_SIDE, MAX_SIDE = 5, 19


# ---------------------------------------------------------------- Numba kernels


@njit(cache=True, inline="always")
def _wins(board, cell, colour, width, exact):
    """Whether the stone of `colour` just placed on padded `cell` makes five in a row (exactly
    five when `exact`: an overline in one direction does not win, five in another still does)."""
    for step in (1, width, width + 1, width - 1):
        run = run_through(board, cell, colour, step)
        if run == ROW_TO_WIN or (run > ROW_TO_WIN and not exact):
            return True
    return False


@njit(cache=True)
def legal_actions(state, mask):
    return legal_cells(state[BOARD:], state[ROWS], state[COLS], state[STATUS] == ONGOING, mask)


@njit(cache=True, inline="always")
def _place(state, board, cell):
    """Put the mover's stone on padded `cell` and settle ply, last stone and status."""
    ply_now = state[PLY]
    colour = (ply_now & 1) + 1
    board[cell] = colour
    state[PLY] = ply_now + 1
    state[LAST] = cell
    if _wins(board, cell, colour, state[COLS] + 1, state[EXACT] != 0):
        state[STATUS] = colour  # BLACK == FIRST_WON, WHITE == SECOND_WON
    elif ply_now + 1 == state[ROWS] * state[COLS]:
        state[STATUS] = DRAW


@njit(cache=True)
def play(state, action):
    _place(state, state[BOARD:], padded_cell(state[COLS], action))


@njit(cache=True)
def status(state):
    return state[STATUS]


@njit(cache=True)
def to_move(state):
    return state[PLY] & 1


@njit(cache=True)
def ply(state):
    return state[PLY]


@njit(cache=True)
def encode(state, out):
    """Planes: own stones, opponent stones, the opponent's last stone, ones when Black moves
    (the first player's edge in Gomoku is large, so the network is told which side it is)."""
    rows, cols = state[ROWS], state[COLS]
    width = cols + 1
    board = state[BOARD:]
    own = (state[PLY] & 1) + 1
    out[:] = 0.0
    for row in range(rows):
        for col in range(cols):
            stone = board[(row + 1) * width + col]
            if stone == own:
                out[0, row, col] = 1.0
            elif stone != EMPTY:
                out[1, row, col] = 1.0
    if state[LAST] != NONE:
        out[2, state[LAST] // width - 1, state[LAST] % width] = 1.0
    if own == BLACK:
        out[3] = 1.0


U5, LOW_FIVE_BITS = np.uint64(5), np.uint64(31)


@njit(cache=True, inline="always")
def _holds_five(word, exact):
    """Bits where a run of five (exactly five when `exact`) starts in `word`'s lines."""
    pairs = word & (word >> U1)
    fives = pairs & (pairs >> U2) & (word >> U4)
    if exact:  # no stone just before the run nor just after it
        return fives & ~(word << U1) & ~(word >> U5)
    return fives


@njit(cache=True, inline="always")
def _add_stone(lines, base, rows, cols, row, col, exact):
    """Add a stone to its line masks; nonzero when one of its lines now holds five in a row."""
    lines_a, lines_b = add_to_lines(lines, base, rows, cols, row, col)
    return _holds_five(lines_a, exact) | _holds_five(lines_b, exact)


@njit(cache=True)
def random_playout(state, rng):
    """Fisher-Yates over the empty cells (packed row*32+col), with a bitmask per line and
    colour so that the five test is branch-free; the board is written back at the end."""
    if state[STATUS] != ONGOING:
        return state[STATUS]
    rows, cols = state[ROWS], state[COLS]
    width = cols + 1
    exact = state[EXACT] != 0
    board = state[BOARD:]
    block = line_block(rows, cols)
    u_rows, u_cols = np.uint64(rows), np.uint64(cols)
    scratch = np.zeros(rows * cols + 2 * block, dtype=np.uint64)
    empties = scratch[:rows * cols]
    lines = scratch[rows * cols:]
    count = 0
    for row in range(rows):
        for col in range(cols):
            stone = board[(row + 1) * width + col]
            empties[count] = row * 32 + col  # kept only if the cell is empty (no branch)
            count += stone == EMPTY
            if stone != EMPTY:
                _add_stone(lines, np.uint64((stone - 1) * block), u_rows, u_cols,
                           np.uint64(row), np.uint64(col), exact)
    first_ply = state[PLY]
    placed = 0
    won = np.uint64(0)
    while won == 0 and placed < count:
        # Swap the pick to the end of the unplayed part, so empties[count-1-k] is stone k.
        last = np.uint64(count - 1 - placed)
        pick = np.uint64(rand_below(rng, last + U1))
        packed = empties[pick]
        empties[pick] = empties[last]
        empties[last] = packed
        base = np.uint64(((first_ply + placed) & 1) * block)
        won = _add_stone(lines, base, u_rows, u_cols, packed >> U5, packed & LOW_FIVE_BITS, exact)
        placed += 1
    for k in range(placed):
        packed = np.int64(empties[count - 1 - k])
        board[((packed >> 5) + 1) * width + (packed & 31)] = ((first_ply + k) & 1) + 1
    packed = np.int64(empties[count - placed])  # the last stone (an ongoing game has one)
    state[LAST] = ((packed >> 5) + 1) * width + (packed & 31)
    state[PLY] = first_ply + placed
    state[STATUS] = ((first_ply + placed - 1) & 1) + 1 if won != 0 else DRAW
    return state[STATUS]


KERNELS = Kernels(legal_actions, play, status, to_move, ply, encode, random_playout)


# ---------------------------------------------------------------- Python side


def _board_shape(params: dict) -> tuple[int, int]:
    """(rows, cols) from `size` or from `rows` and `cols` (each defaulting to 15)."""
    if "size" in params and ("rows" in params or "cols" in params):
        raise GameError("gomoku takes either size=N or rows=R cols=C, not both.")
    if "size" in params:
        side = int_param("gomoku", "size", params["size"], MIN_SIDE, MAX_SIDE)
        return side, side
    return (int_param("gomoku", "rows", params.get("rows", 15), MIN_SIDE, MAX_SIDE),
            int_param("gomoku", "cols", params.get("cols", 15), MIN_SIDE, MAX_SIDE))


class Gomoku(StoneBoard, KernelGame):
    name = "gomoku"
    title = "Gomoku"
    move_example = "C3"
    board_start = BOARD
    planes = 4
    state_dtype = np.int16
    kernels = KERNELS

    def __init__(self, **params):
        check_param_names(self.name, params, ["size", "rows", "cols", "exact_five"])
        self.rows, self.cols = _board_shape(params)
        self.exact_five = bool_param(self.name, "exact_five", params.get("exact_five", False))
        self.exact_winning_line = 5 if self.exact_five else None
        self.height, self.width = self.rows, self.cols
        self.num_actions = self.rows * self.cols
        self.state_size = BOARD + (self.rows + 2) * (self.cols + 1)
        # AlphaZero's ~10 / typical legal moves; most of the board stays empty in Gomoku.
        self.dirichlet_alpha = 12.0 / self.num_actions
        self.cells = board_symmetries(self.rows, self.cols)
        self.cells.setflags(write=False)
        self.num_symmetries = len(self.cells)

    def params(self) -> dict:
        shape = ({"size": self.rows} if self.rows == self.cols
                 else {"rows": self.rows, "cols": self.cols})
        return {**shape, "exact_five": self.exact_five}

    def presentation(self) -> Presentation:
        line = ("Exactly five in a row wins (six or more does not)" if self.exact_five
                else "Five or more in a row wins (free-style: six counts too)")
        return Presentation(name="Gomoku", board=f"{self.rows}×{self.cols}",
                            variant="exactly five" if self.exact_five else "",
                            rules=f"{line}. Black moves first, one stone a turn.")

    def new_state(self, rng=None) -> np.ndarray:
        return self.empty_board((self.rows, self.cols, 0, ONGOING, NONE, int(self.exact_five)))

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        out = self.moved_stones(state, g)
        if state[LAST] != NONE:
            out[LAST] = self.moved_cell(int(state[LAST]), g)
        return out

    def turn_line(self, state: np.ndarray) -> str:
        return f"{COLOUR_NAMES[int(to_move(state)) + 1]} to move."


GAME = Gomoku
