"""Connect6: Black opens with one stone, then each side places two stones per turn; six or
more in a row (overlines included) wins at once, a full board is a draw.

One action is one stone (action = row * size + col, row 0 at the top), so a turn is two
actions by the same side and `ply` counts stones.

State (int16): a header, then the padded board of games.core.stone_board. Header fields:
board size, ply, status, the opponent's last-turn stones (two padded cells, sorted, -1 when
absent) and the mover's stone already placed this turn (-1 when none).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from games.core.base import DRAW, ONGOING, KernelGame, Kernels, check_param_names, int_param
from games.core.presentation import Presentation
from games.connect6.threats import cell_windows, compile_threat_search, forced_cells, six_windows
from games.core.rng import rand_below
from games.core.stone_board import (COLOUR_NAMES, EMPTY, U1, U2, U4, StoneBoard, add_to_lines,
                               board_symmetries, legal_cells, line_block, padded_cell,
                               run_through)

SIZE, PLY, STATUS, OPP_A, OPP_B, OWN, BOARD = range(7)
NONE = -1
ROW_TO_WIN = 6


# ---------------------------------------------------------------- Numba kernels


@njit(cache=True, inline="always")
def _mover(ply):
    """0 for Black, 1 for White: Black places stone 0, then sides alternate pairs."""
    return ((ply + 1) >> 1) & 1


@njit(cache=True, inline="always")
def _makes_six(board, cell, colour, width):
    """Whether the stone of `colour` just placed on `cell` completes six or more in a row."""
    for step in (1, width, width + 1, width - 1):
        if run_through(board, cell, colour, step) >= ROW_TO_WIN:
            return True
    return False


@njit(cache=True, inline="always")
def _remember(state, ply, cell):
    """Update the turn memory for the stone placed on padded `cell` at `ply`."""
    if ply & 1 == 1:  # first stone of a pair: remember it until the pair is complete
        state[OWN] = cell
    else:  # the opening stone or a completed pair becomes the opponent's "last turn"
        first = state[OWN]
        state[OPP_A] = min(first, cell) if first != NONE else cell
        state[OPP_B] = max(first, cell) if first != NONE else NONE
        state[OWN] = NONE


@njit(cache=True)
def legal_actions(state, mask):
    size = state[SIZE]
    return legal_cells(state[BOARD:], size, size, state[STATUS] == ONGOING, mask)


@njit(cache=True)
def play(state, action):
    size = state[SIZE]
    board = state[BOARD:]
    ply_now = state[PLY]
    colour = _mover(ply_now) + 1
    cell = padded_cell(size, action)
    board[cell] = colour
    _remember(state, ply_now, cell)
    state[PLY] = ply_now + 1
    if _makes_six(board, cell, colour, size + 1):
        state[STATUS] = colour  # BLACK == FIRST_WON, WHITE == SECOND_WON
    elif ply_now + 1 == size * size:
        state[STATUS] = DRAW


@njit(cache=True)
def status(state):
    return state[STATUS]


@njit(cache=True)
def to_move(state):
    return _mover(state[PLY])


@njit(cache=True)
def ply(state):
    return state[PLY]


@njit(cache=True)
def encode(state, out):
    """Planes: own stones, opponent stones, opponent's last-turn stones, own stone this turn."""
    size = state[SIZE]
    width = size + 1
    board = state[BOARD:]
    own = _mover(state[PLY]) + 1
    out[:] = 0.0
    for row in range(size):
        for col in range(size):
            stone = board[(row + 1) * width + col]
            if stone == own:
                out[0, row, col] = 1.0
            elif stone != EMPTY:
                out[1, row, col] = 1.0
    for field, plane in ((OPP_A, 2), (OPP_B, 2), (OWN, 3)):
        cell = state[field]
        if cell != NONE:
            out[plane, cell // width - 1, cell % width] = 1.0


U5, LOW_FIVE_BITS = np.uint64(5), np.uint64(31)


@njit(cache=True, inline="always")
def _holds_six(word):
    pairs = word & (word >> U1)
    fours = pairs & (pairs >> U2)
    return fours & (pairs >> U4)


@njit(cache=True, inline="always")
def _add_stone(lines, base, size, row, col):
    """Add a stone to its line masks; nonzero when one of its lines now holds six in a row."""
    lines_a, lines_b = add_to_lines(lines, base, size, size, row, col)
    return _holds_six(lines_a) | _holds_six(lines_b)


@njit(cache=True)
def random_playout(state, rng):
    """Fisher-Yates over the empty cells (packed row*32+col), with a bitmask per line and
    colour so that the six test is branch-free; the board is written back at the end."""
    if state[STATUS] != ONGOING:
        return state[STATUS]
    size = state[SIZE]
    width = size + 1
    board = state[BOARD:]
    block = line_block(size, size)
    scratch = np.zeros(size * size + 2 * block, dtype=np.uint64)
    empties = scratch[:size * size]
    lines = scratch[size * size:]
    count = 0
    for row in range(size):
        for col in range(size):
            stone = board[(row + 1) * width + col]
            empties[count] = row * 32 + col  # kept only if the cell is empty (no branch)
            count += stone == EMPTY
            if stone != EMPTY:
                _add_stone(lines, np.uint64((stone - 1) * block), np.uint64(size),
                           np.uint64(row), np.uint64(col))
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
        base = np.uint64(_mover(first_ply + placed) * block)
        won = _add_stone(lines, base, np.uint64(size), packed >> U5, packed & LOW_FIVE_BITS)
        placed += 1
    for k in range(placed):
        packed = np.int64(empties[count - 1 - k])
        cell = ((packed >> 5) + 1) * width + (packed & 31)
        board[cell] = _mover(first_ply + k) + 1
        if k >= placed - 3:  # the last three stones decide the turn memory
            _remember(state, first_ply + k, cell)
    state[PLY] = first_ply + placed
    state[STATUS] = _mover(first_ply + placed - 1) + 1 if won != 0 else DRAW
    return state[STATUS]


KERNELS = Kernels(legal_actions, play, status, to_move, ply, encode, random_playout)


# ---------------------------------------------------------------- Python side


class Connect6(StoneBoard, KernelGame):
    name = "connect6"
    title = "Connect6"
    move_example = "F5"
    board_start = BOARD
    planes = 4
    num_symmetries = 8
    state_dtype = np.int16

    def __init__(self, **params):
        check_param_names(self.name, params, ["size"])
        self.size = int_param(self.name, "size", params.get("size", 10), 6, 19)
        self.rows = self.cols = self.height = self.width = self.size
        self.num_actions = self.size * self.size
        self.state_size = BOARD + (self.size + 2) * (self.size + 1)
        # AlphaZero's ~10 / typical legal moves; about two thirds of the board is empty.
        self.dirichlet_alpha = 15.0 / self.num_actions
        self.kernels = KERNELS
        self.cells = board_symmetries(self.size, self.size)
        self.cells.setflags(write=False)
        self.windows = six_windows(self.size)
        self.windows_through = cell_windows(self.windows, self.size * self.size)

    def params(self) -> dict:
        return {"size": self.size}

    def presentation(self) -> Presentation:
        return Presentation(name="Connect6", board=f"{self.size}×{self.size}", rules=(
            "Six or more in a row wins. Black opens with one stone, then each side places two "
            "stones a turn."))

    def new_state(self, rng=None) -> np.ndarray:
        return self.empty_board((self.size, 0, ONGOING, NONE, NONE, NONE))

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        out = self.moved_stones(state, g)
        for field in (OPP_A, OPP_B, OWN):
            if state[field] != NONE:
                out[field] = self.moved_cell(int(state[field]), g)
        if out[OPP_B] != NONE and out[OPP_A] > out[OPP_B]:  # keep the pair sorted
            out[OPP_A], out[OPP_B] = out[OPP_B], out[OPP_A]
        return out

    def forced_cells(self, state: np.ndarray) -> np.ndarray | None:
        """bool[num_actions]: the cells the side to move must choose from (a six this turn, a
        block of the opponent's six next turn, a six next turn that cannot be blocked), or
        None where nothing is forced (games.connect6.threats)."""
        if state[STATUS] != ONGOING:
            return None
        left = 1 if state[OWN] != NONE or state[PLY] == 0 else 2  # stones left this turn
        board = self.stones(state).reshape(-1).copy()
        first = NONE if state[OWN] == NONE else self.action_of(int(state[OWN]))
        return forced_cells(self.windows, self.windows_through, board, to_move(state) + 1, left,
                            first)

    def compile_forced_cells(self) -> None:
        """Compile forced_cells' threat search now rather than on the agent's first move."""
        compile_threat_search(self.windows, self.windows_through)

    def turn_line(self, state: np.ndarray) -> str:
        ply_now = int(state[PLY])
        colour = COLOUR_NAMES[int(to_move(state)) + 1]
        if ply_now == 0:
            return f"{colour} to move, opening stone (one stone)."
        stone = 1 if ply_now % 2 == 1 else 2
        return f"{colour} to move, stone {stone} of 2."


GAME = Connect6
