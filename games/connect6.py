"""Connect6: Black opens with one stone, then each side places two stones per turn; six or
more in a row (overlines included) wins at once, a full board is a draw.

One action is one stone (action = row * size + col, row 0 at the top), so a turn is two
actions by the same side and `ply` counts stones.

State (int16): a header, then the board padded with a sentinel row above and below and one
sentinel column (shared by the right and left edges, as in Go engines), so that walking
along a line from any cell stops at a sentinel without bounds checks. Header fields:
board size, ply, status, the opponent's last-turn stones (two padded cells, sorted, -1 when
absent) and the mover's stone already placed this turn (-1 when none).
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from games.base import DRAW, ONGOING, STATUS_NAMES, Game, GameError, check_param_names, int_param
from games.rng import rand_below

SIZE, PLY, STATUS, OPP_A, OPP_B, OWN, BOARD = range(7)
EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
NONE = -1
ROW_TO_WIN = 6
COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRST"  # Go style: no I
SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
COLOUR_NAMES = {BLACK: "Black (X)", WHITE: "White (O)"}


# ---------------------------------------------------------------- Numba kernels


@njit(cache=True, inline="always")
def _mover(ply):
    """0 for Black, 1 for White: Black places stone 0, then sides alternate pairs."""
    return ((ply + 1) >> 1) & 1


@njit(cache=True, inline="always")
def _padded(size, action):
    return (action // size + 1) * (size + 1) + action % size


@njit(cache=True, inline="always")
def _makes_six(board, cell, colour, width):
    """Whether the stone of `colour` just placed on `cell` completes six or more in a row."""
    for step in (1, width, width + 1, width - 1):
        run = 1
        other = cell + step
        while board[other] == colour:
            run += 1
            other += step
        other = cell - step
        while board[other] == colour:
            run += 1
            other -= step
        if run >= ROW_TO_WIN:
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
    board = state[BOARD:]
    ongoing = state[STATUS] == ONGOING
    count = 0
    for row in range(size):
        base = (row + 1) * (size + 1)
        for col in range(size):
            free = ongoing and board[base + col] == EMPTY
            mask[row * size + col] = free
            count += free
    return count


@njit(cache=True)
def play(state, action):
    size = state[SIZE]
    board = state[BOARD:]
    ply_now = state[PLY]
    colour = _mover(ply_now) + 1
    cell = _padded(size, action)
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


# random_playout works in uint64: Numba skips its negative-index wraparound fix-up for
# unsigned indices, which is worth about 10% in this loop.
U1, U2, U4, U5 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(5)
HALF_WORD, LOW_FIVE_BITS = np.uint64(32), np.uint64(31)


@njit(cache=True, inline="always")
def _holds_six(word):
    pairs = word & (word >> U1)
    fours = pairs & (pairs >> U2)
    return fours & (pairs >> U4)


@njit(cache=True, inline="always")
def _add_to_lines(lines, base, size, row, col):
    """Set a stone's bit in its row, column and two diagonal masks (one colour's block of
    6*size-2 masks from `base`: rows, columns, then the diagonals by row-col and by row+col);
    nonzero when one of them now holds six in a row."""
    at_row = base + row
    at_col = base + size + col
    at_diag = base + U2 * size + size - U1 + row - col  # wraps below zero and back: fine
    at_anti = base + U4 * size - U1 + row + col
    col_bit = U1 << col
    by_row = lines[at_row] | col_bit
    by_col = lines[at_col] | (U1 << row)
    by_diag = lines[at_diag] | col_bit
    by_anti = lines[at_anti] | col_bit
    lines[at_row] = by_row
    lines[at_col] = by_col
    lines[at_diag] = by_diag
    lines[at_anti] = by_anti
    # Two lines per test: each mask has at most 19 bits, so 13 zero bits keep them apart.
    return (_holds_six(by_row | (by_col << HALF_WORD))
            | _holds_six(by_diag | (by_anti << HALF_WORD)))


@njit(cache=True)
def random_playout(state, rng):
    """Fisher-Yates over the empty cells (packed row*32+col), with a bitmask per line and
    colour so that the six test is branch-free; the board is written back at the end."""
    if state[STATUS] != ONGOING:
        return state[STATUS]
    size = state[SIZE]
    width = size + 1
    board = state[BOARD:]
    block = 6 * size - 2
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
                _add_to_lines(lines, np.uint64((stone - 1) * block), np.uint64(size),
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
        won = _add_to_lines(lines, base, np.uint64(size), packed >> U5, packed & LOW_FIVE_BITS)
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


KERNELS = {"legal_actions": legal_actions, "play": play, "status": status, "to_move": to_move,
           "ply": ply, "encode": encode, "random_playout": random_playout}


# ---------------------------------------------------------------- Python side


def _square_symmetries(size: int) -> np.ndarray:
    """int64[8, size*size]: cell i goes to cells[g, i]; rotations, then mirrored rotations."""
    grid = np.arange(size * size).reshape(size, size)
    cells = np.empty((8, size * size), dtype=np.int64)
    for g in range(8):
        image = np.rot90(grid, g % 4)
        if g >= 4:
            image = np.fliplr(image)
        cells[g, image.ravel()] = np.arange(size * size)  # image[new] = old, so invert
    return cells


class Connect6(Game):
    name = "connect6"
    planes = 4
    num_symmetries = 8
    state_dtype = np.int16

    def __init__(self, **params):
        check_param_names(self.name, params, ["size"])
        self.size = int_param(self.name, "size", params.get("size", 10), 6, 19)
        self.height = self.width = self.size
        self.num_actions = self.size * self.size
        self.state_size = BOARD + (self.size + 2) * (self.size + 1)
        # AlphaZero's ~10 / typical legal moves; about two thirds of the board is empty.
        self.dirichlet_alpha = 15.0 / self.num_actions
        self.kernels = KERNELS
        self._cells = _square_symmetries(self.size)
        self._cells.setflags(write=False)

    def params(self) -> dict:
        return {"size": self.size}

    def _to_action(self, cell: int) -> int:
        return (cell // (self.size + 1) - 1) * self.size + cell % (self.size + 1)

    def _stones(self, state: np.ndarray) -> np.ndarray:
        """The board as int16[size, size] of EMPTY, BLACK, WHITE."""
        padded = state[BOARD:].reshape(self.size + 2, self.size + 1)
        return padded[1:-1, :-1]

    def new_state(self, rng=None) -> np.ndarray:
        state = np.full(self.state_size, EDGE, dtype=self.state_dtype)
        state[:BOARD] = (self.size, 0, ONGOING, NONE, NONE, NONE)
        self._stones(state)[:] = EMPTY
        return state

    def symmetries(self, state):
        return self._cells, self._cells

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        cells = self._cells[g]
        out = state.copy()
        moved = np.empty(self.num_actions, dtype=self.state_dtype)
        moved[cells] = self._stones(state).ravel()
        self._stones(out)[:] = moved.reshape(self.size, self.size)
        for field in (OPP_A, OPP_B, OWN):
            if state[field] != NONE:
                out[field] = _padded(self.size, cells[self._to_action(int(state[field]))])
        if out[OPP_B] != NONE and out[OPP_A] > out[OPP_B]:  # keep the pair sorted
            out[OPP_A], out[OPP_B] = out[OPP_B], out[OPP_A]
        return out

    def format_move(self, state: np.ndarray, action: int) -> str:
        row, col = divmod(int(action), self.size)
        return f"{COLUMN_LETTERS[col]}{self.size - row}"

    def parse_move(self, state: np.ndarray, text: str) -> int:
        last = COLUMN_LETTERS[self.size - 1]
        match = re.fullmatch(r"\s*([A-HJ-Z])([1-9]\d?)\s*", str(text).upper())
        if not match:
            raise GameError(f"'{text}' is not a Connect6 move; write a column letter "
                            f"A to {last} (there is no I) and a row number, like F5.")
        letter, number = match.group(1), int(match.group(2))
        col = COLUMN_LETTERS.find(letter)
        if not (0 <= col < self.size and 1 <= number <= self.size):
            raise GameError(f"{letter}{number} is off the {self.size}x{self.size} board "
                            f"(columns A to {last}, rows 1 to {self.size}).")
        if state[STATUS] != ONGOING:
            raise GameError(f"{letter}{number} cannot be played: the game is over.")
        action = (self.size - number) * self.size + col
        if self._stones(state).ravel()[action] != EMPTY:
            raise GameError(f"{letter}{number} is already occupied.")
        return action

    def render(self, state: np.ndarray) -> str:
        stones = self._stones(state)
        lines = [f"{self.size - row:>2} " + " ".join(SYMBOLS[int(v)] for v in stones[row])
                 for row in range(self.size)]
        lines.append("   " + " ".join(COLUMN_LETTERS[:self.size]))
        lines.append(self._turn_line(state))
        return "\n".join(lines)

    def _turn_line(self, state: np.ndarray) -> str:
        if state[STATUS] != ONGOING:
            return f"Game over after {state[PLY]} stones: {STATUS_NAMES[int(state[STATUS])]}."
        ply_now = int(state[PLY])
        colour = COLOUR_NAMES[int(to_move(state)) + 1]
        if ply_now == 0:
            return f"{colour} to move, opening stone (one stone)."
        stone = 1 if ply_now % 2 == 1 else 2
        return f"{colour} to move, stone {stone} of 2."


GAME = Connect6
