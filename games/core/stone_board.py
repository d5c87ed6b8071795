"""What Connect6 and Gomoku share: a padded board of stones, per-line bitmasks for fast
random playouts, board symmetries and Go-style notation (columns A-T without I, row 1 at
the bottom, so A1 is the bottom-left corner).

The board is padded with a sentinel row above and below and one sentinel column (shared by
the right and left edges, as in Go engines), so that walking along a line from any cell
stops at a sentinel without bounds checks. Action = row * cols + col, row 0 at the top.
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from games.core.base import DRAW, ONGOING, GameError

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRST"  # Go style: no I
SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
COLOUR_NAMES = {BLACK: "Black (X)", WHITE: "White (O)"}


@njit(cache=True, inline="always")
def padded_cell(cols, action):
    return (action // cols + 1) * (cols + 1) + action % cols


@njit(cache=True, inline="always")
def run_through(board, cell, colour, step):
    """The length of the run of `colour` stones through padded `cell` along `step` (1: a
    row, cols + 1: a column, cols + 2 and cols: the diagonals), the stone on `cell` included."""
    run = 1
    other = cell + step
    while board[other] == colour:
        run += 1
        other += step
    other = cell - step
    while board[other] == colour:
        run += 1
        other -= step
    return run


@njit(cache=True, inline="always")
def legal_cells(board, rows, cols, ongoing, mask):
    """Fill mask[action] with whether that cell is empty (all False once the game is over);
    return the count."""
    count = 0
    for row in range(rows):
        base = (row + 1) * (cols + 1)
        for col in range(cols):
            free = ongoing and board[base + col] == EMPTY
            mask[row * cols + col] = free
            count += free
    return count


# Line bitmasks work in uint64: Numba skips its negative-index wraparound fix-up for unsigned
# indices, which is worth about 10% in a random playout.
U1, U2, U4 = np.uint64(1), np.uint64(2), np.uint64(4)
HALF_WORD = np.uint64(32)


@njit(cache=True, inline="always")
def line_block(rows, cols):
    """How many line masks one colour has: rows, columns and the two diagonal directions."""
    return 3 * (rows + cols) - 2


@njit(cache=True, inline="always")
def add_to_lines(lines, base, rows, cols, row, col):
    """Set a stone's bit in its row, column and two diagonal masks (one colour's block of
    line_block masks from `base`: rows, columns, then the diagonals by row-col and by
    row+col). Returns the row and column masks packed in one word and the two diagonals in
    another, for the game's own run test on two lines at once: each mask has at most 19
    bits, so 13 zero bits keep the halves apart."""
    diagonals = base + rows + cols
    at_row = base + row
    at_col = base + rows + col
    at_diag = diagonals + cols - U1 + row - col  # wraps below zero and back: fine
    at_anti = diagonals + rows + cols - U1 + row + col
    col_bit = U1 << col
    by_row = lines[at_row] | col_bit
    by_col = lines[at_col] | (U1 << row)
    by_diag = lines[at_diag] | col_bit
    by_anti = lines[at_anti] | col_bit
    lines[at_row] = by_row
    lines[at_col] = by_col
    lines[at_diag] = by_diag
    lines[at_anti] = by_anti
    return by_row | (by_col << HALF_WORD), by_diag | (by_anti << HALF_WORD)


def board_symmetries(rows: int, cols: int) -> np.ndarray:
    """int64[G, rows*cols]: cell i goes to cells[g, i]. The rotations and mirrored rotations
    that map the board onto itself, identity first: 8 on a square, 4 on a rectangle."""
    grid = np.arange(rows * cols).reshape(rows, cols)
    maps = []
    for g in range(8):
        image = np.rot90(grid, g % 4)
        if g >= 4:
            image = np.fliplr(image)
        if image.shape == grid.shape:
            cells = np.empty(rows * cols, dtype=np.int64)
            cells[image.ravel()] = np.arange(rows * cols)  # image[new] = old, so invert
            maps.append(cells)
    return np.stack(maps)


class StoneBoard:
    """The Python side of a Game whose state is a header, then a padded stone board from
    index `board_start`: the empty start, symmetries, notation, parsing with one-sentence
    errors, and the rendered board. The game sets `rows`, `cols`, `title` (for messages),
    `move_example` and `cells` (board_symmetries), and says whose turn it is in `turn_line`."""

    board_start: int
    rows: int
    cols: int
    title: str
    move_example: str
    cells: np.ndarray

    def stones(self, state: np.ndarray) -> np.ndarray:
        """The board as [rows, cols] of EMPTY, BLACK, WHITE (a view into the state)."""
        padded = state[self.board_start:].reshape(self.rows + 2, self.cols + 1)
        return padded[1:-1, :-1]

    def empty_board(self, header) -> np.ndarray:
        """A start state: `header`, then an empty board inside its sentinels."""
        state = np.full(self.state_size, EDGE, dtype=self.state_dtype)
        state[:self.board_start] = header
        self.stones(state)[:] = EMPTY
        return state

    def symmetries(self, state):
        return self.cells, self.cells

    def moved_stones(self, state: np.ndarray, g: int) -> np.ndarray:
        """A copy of `state` with its stones moved by symmetry g; the header is the game's."""
        out = state.copy()
        moved = np.empty(self.rows * self.cols, dtype=state.dtype)
        moved[self.cells[g]] = self.stones(state).ravel()
        self.stones(out)[:] = moved.reshape(self.rows, self.cols)
        return out

    def action_of(self, cell: int) -> int:
        """The action (row * cols + col) that places a stone on padded `cell`."""
        return (cell // (self.cols + 1) - 1) * self.cols + cell % (self.cols + 1)

    def moved_cell(self, cell: int, g: int) -> int:
        """Padded `cell` moved by symmetry g."""
        return padded_cell(self.cols, self.cells[g, self.action_of(cell)])

    def format_move(self, state: np.ndarray, action: int) -> str:
        row, col = divmod(int(action), self.cols)
        return f"{COLUMN_LETTERS[col]}{self.rows - row}"

    def parse_move(self, state: np.ndarray, text: str) -> int:
        last = COLUMN_LETTERS[self.cols - 1]
        match = re.fullmatch(r"\s*([A-HJ-Z])([1-9]\d?)\s*", str(text).upper())
        if not match:
            raise GameError(f"'{text}' is not a {self.title} move; write a column letter "
                            f"A to {last} (there is no I) and a row number, like "
                            f"{self.move_example}.")
        letter, number = match.group(1), int(match.group(2))
        col = COLUMN_LETTERS.find(letter)
        if not (0 <= col < self.cols and 1 <= number <= self.rows):
            raise GameError(f"{letter}{number} is off the {self.rows}x{self.cols} board "
                            f"(columns A to {last}, rows 1 to {self.rows}).")
        if self.status(state) != ONGOING:
            raise GameError(f"{letter}{number} cannot be played: the game is over.")
        action = (self.rows - number) * self.cols + col
        if self.stones(state).ravel()[action] != EMPTY:
            raise GameError(f"{letter}{number} is already occupied.")
        return action

    def render(self, state: np.ndarray) -> str:
        stones = self.stones(state)
        lines = [f"{self.rows - row:>2} " + " ".join(SYMBOLS[int(v)] for v in stones[row])
                 for row in range(self.rows)]
        lines.append("   " + " ".join(COLUMN_LETTERS[:self.cols]))
        outcome = self.status(state)
        if outcome != ONGOING:
            result = "draw" if outcome == DRAW else f"{COLOUR_NAMES[outcome]} won"
            lines.append(f"Game over after {self.ply(state)} stones: {result}.")
        else:
            lines.append(self.turn_line(state))
        return "\n".join(lines)

    def turn_line(self, state: np.ndarray) -> str:
        raise NotImplementedError
