"""Gravity Connect-4 with the course rules: R x C boards (4..12 each, possibly drawn per game)
and an optional forbidden cell that never holds a stone and breaks lines.

Row 0 is the top row. A stone dropped in a column lands in its lowest empty cell that is not
the forbidden cell; four or more in a row of one colour wins at once, a full board is a draw.
Actions are columns.

State layout (int16, the same fixed offsets for every board size):
  header   ROWS, COLS, FORB_ROW, FORB_COL (-1 when none), PLY, STATUS, CELLS (playable
           cells: the ply at which the board is full), OPEN_COUNT
  HEIGHT   per column, the row the next stone lands on; -1 when the column is full
  OPEN     the open columns in ascending order (OPEN_COUNT of them, then 0), so a uniform
           random legal move is one random index
  LINES    per player, a bit mask for every line of a 12 x 12 board: rows (bit = column),
           columns (bit = row), down-right and up-right diagonals (bit = column). Four in a
           row is four consecutive bits of one mask; the forbidden cell's bit is never set,
           so it breaks lines for free, and only the four masks through a new stone change.
Everything after the header is a function of the position, so equal positions are equal
arrays. Constant offsets keep the playout loop short: with offsets computed from the board
size it ran 7% slower on 12 x 12.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from games.core.base import (DRAW, FIRST_WON, ONGOING, GameError, KernelGame, Kernels,
                             check_param_names, int_param)
from games.core.presentation import Presentation
from games.core.rng import rand_below

MIN_SIDE, MAX_SIDE = 4, 12
ROWS, COLS, FORB_ROW, FORB_COL, PLY, STATUS, CELLS, OPEN_COUNT = range(8)
HEIGHT = 8
OPEN = HEIGHT + MAX_SIDE
LINES = OPEN + MAX_SIDE
COL_LINES = MAX_SIDE  # within one player's masks; row masks come first
DIAG_LINES = COL_LINES + MAX_SIDE  # down-right diagonal through (row, col): row - col + MAX_SIDE - 1
ANTI_LINES = DIAG_LINES + 2 * MAX_SIDE - 1  # up-right diagonal: row + col
LINE_BLOCK = ANTI_LINES + 2 * MAX_SIDE - 1
STATE_SIZE = LINES + 2 * LINE_BLOCK
COORD_MASK = 15  # rows and columns are below MAX_SIDE <= 16

STONES = ".XO"
FORBIDDEN_MARK = "#"


# ----------------------------------------------------------------------------- kernels

@njit(cache=True, inline="always")
def _coord(value):
    """A stored row or column as a value LLVM can see is non-negative: that removes Numba's
    negative-index wraparound from every access it indexes (playouts run ~1.7x faster)."""
    return value & COORD_MASK


@njit(cache=True, inline="always")
def _line_slots(player, row, col):
    """Indices of `player`'s row, column, down-right and up-right masks through (row, col)."""
    base = LINES + player * LINE_BLOCK
    return (base + row, base + COL_LINES + col, base + DIAG_LINES + row - col + MAX_SIDE - 1,
            base + ANTI_LINES + row + col)


@njit(cache=True, inline="always")
def _four_in_any(row_mask, col_mask, diag_mask, anti_mask):
    """True if any of the four line masks (at most 12 bits each) has four consecutive bits.

    The masks sit in separate 16-bit lanes of one word, so one test covers all four: bits
    shifted down from a lane meet only the always-clear top bits of the lane below."""
    lanes = row_mask | (col_mask << 16) | (diag_mask << 32) | (anti_mask << 48)
    pairs = lanes & (lanes >> 1)
    return (pairs & (pairs >> 2)) != 0


@njit(cache=True, inline="always")
def _next_row(row, col, forb_row, forb_col):
    """The landing row in `col` after a stone lands on `row`; -1 when the column is full."""
    row -= 1
    if row == forb_row and col == forb_col:
        row -= 1  # skip over the forbidden cell
    return row


@njit(cache=True, inline="always")
def _close_open_slot(state, slot):
    """Remove entry `slot` of the ascending open-column list (its column just filled)."""
    count = state[OPEN_COUNT] - 1
    for i in range(slot, count):
        state[OPEN + i] = state[OPEN + i + 1]
    state[OPEN + count] = 0
    state[OPEN_COUNT] = count


@njit(cache=True)
def legal_actions(state, mask):
    mask[:] = False
    if state[STATUS] != ONGOING:
        return 0
    count = state[OPEN_COUNT]
    for i in range(count):
        mask[state[OPEN + i]] = True
    return count


@njit(cache=True)
def play(state, action):
    col = action
    row = _coord(state[HEIGHT + col])
    ply = state[PLY]
    # random_playout repeats these lines: a helper taking `state` would cost Numba an atomic
    # incref/decref pair per ply there, which doubled a playout's time
    by_row, by_col, by_diag, by_anti = _line_slots(ply & 1, row, col)
    row_mask, col_mask = state[by_row] | (1 << col), state[by_col] | (1 << row)
    diag_mask, anti_mask = state[by_diag] | (1 << col), state[by_anti] | (1 << col)
    state[by_row], state[by_col], state[by_diag], state[by_anti] = row_mask, col_mask, diag_mask, anti_mask
    won = _four_in_any(row_mask, col_mask, diag_mask, anti_mask)
    row = _next_row(row, col, state[FORB_ROW], state[FORB_COL])
    state[HEIGHT + col] = row
    if row < 0:
        slot = 0
        while state[OPEN + slot] != col:
            slot += 1
        _close_open_slot(state, slot)
    state[PLY] = ply + 1
    if won:
        state[STATUS] = FIRST_WON + (ply & 1)
    elif ply + 1 == state[CELLS]:
        state[STATUS] = DRAW


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
    """Planes: own stones, opponent stones, on-board cells, forbidden cell, and the on-board
    cells again when the second player moves (who moves decides whose threats on odd and on
    even rows count); the board sits bottom-left in the padded canvas (gravity's floor is the
    canvas floor)."""
    out[:] = 0.0
    rows, cols = state[ROWS], state[COLS]
    top = out.shape[1] - rows
    second = state[PLY] & 1
    own = LINES + second * LINE_BLOCK
    other = LINES + (1 - second) * LINE_BLOCK
    for r in range(rows):
        own_row, other_row = state[own + r], state[other + r]
        for c in range(cols):
            out[0, top + r, c] = (own_row >> c) & 1
            out[1, top + r, c] = (other_row >> c) & 1
            out[2, top + r, c] = 1.0
            out[4, top + r, c] = second
    if state[FORB_ROW] >= 0:
        out[3, top + state[FORB_ROW], state[FORB_COL]] = 1.0


def add_side_to_move(planes: np.ndarray) -> np.ndarray:
    """Samples [n, 4, H, W] encoded before the side-to-move plane existed, with it added: the
    on-board cells where an odd number of stones lies on the board (the second player moves)."""
    stones = planes[:, 0].sum((1, 2), dtype=np.int64) + planes[:, 1].sum((1, 2), dtype=np.int64)
    second = (stones % 2).astype(planes.dtype)[:, None, None]
    return np.concatenate([planes, (planes[:, 2] * second)[:, None]], axis=1)


@njit(cache=True)
def random_playout(state, rng):
    """`play` in a loop (its lines repeated, see there), ply and result kept in locals."""
    result = state[STATUS]
    ply, cells = state[PLY], state[CELLS]
    forb_row, forb_col = state[FORB_ROW], state[FORB_COL]
    while result == ONGOING:
        slot = rand_below(rng, state[OPEN_COUNT])
        col = _coord(state[OPEN + slot])
        row = _coord(state[HEIGHT + col])
        by_row, by_col, by_diag, by_anti = _line_slots(ply & 1, row, col)
        row_mask, col_mask = state[by_row] | (1 << col), state[by_col] | (1 << row)
        diag_mask, anti_mask = state[by_diag] | (1 << col), state[by_anti] | (1 << col)
        state[by_row], state[by_col], state[by_diag], state[by_anti] = row_mask, col_mask, diag_mask, anti_mask
        won = _four_in_any(row_mask, col_mask, diag_mask, anti_mask)
        row = _next_row(row, col, forb_row, forb_col)
        state[HEIGHT + col] = row
        if row < 0:
            _close_open_slot(state, slot)
        ply += 1
        if won:
            result = FIRST_WON + ((ply - 1) & 1)
        elif ply == cells:
            result = DRAW
    state[PLY] = ply
    state[STATUS] = result
    return result


@njit(cache=True)
def _fill_state(state, board, forb_row, forb_col, game_status):
    """Write into zeroed `state` the position `board` (int8 [rows, cols]: 0 empty, 1 first
    player, 2 second player), with forbidden cell (forb_row, forb_col) or (-1, -1)."""
    rows, cols = board.shape
    stones = 0
    for r in range(rows):
        for c in range(cols):
            if board[r, c] != 0:
                stones += 1
                slots = _line_slots(board[r, c] - 1, r, c)
                bits = (c, r, c, c)
                for k in range(4):
                    state[slots[k]] |= 1 << bits[k]
    count = 0
    for c in range(cols):
        landing = -1  # the lowest empty cell that is not the forbidden one
        for r in range(rows):
            if board[r, c] == 0 and not (r == forb_row and c == forb_col):
                landing = r
        state[HEIGHT + c] = landing
        if landing >= 0:
            state[OPEN + count] = c
            count += 1
    state[ROWS], state[COLS], state[FORB_ROW], state[FORB_COL] = rows, cols, forb_row, forb_col
    state[PLY], state[STATUS], state[OPEN_COUNT] = stones, game_status, count
    state[CELLS] = rows * cols - (forb_row >= 0)


@njit(cache=True)
def _read_board(state, board):
    """Fill int8 board[rows, cols] with 0 empty, 1 first player, 2 second player."""
    rows, cols = board.shape
    for player in range(2):
        for r in range(rows):
            for c in range(cols):
                if (state[LINES + player * LINE_BLOCK + r] >> c) & 1:
                    board[r, c] = player + 1


# ----------------------------------------------------------------------------- Python side

def _board(state: np.ndarray) -> np.ndarray:
    board = np.zeros((int(state[ROWS]), int(state[COLS])), dtype=np.int8)
    _read_board(state, board)
    return board


def _forbidden(state: np.ndarray):
    return None if state[FORB_ROW] < 0 else (int(state[FORB_ROW]), int(state[FORB_COL]))


def _side_param(key: str, value) -> tuple[int, int]:
    """A board side: a number, or [lo, hi] drawn per game; returned as (lo, hi)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise GameError(f"connect4 parameter {key} must be a number or a range [lo, hi], not {value}.")
        low = int_param("connect4", key, value[0], MIN_SIDE, MAX_SIDE)
        high = int_param("connect4", key, value[1], MIN_SIDE, MAX_SIDE)
        if low > high:
            raise GameError(f"connect4 parameter {key}={value} is an empty range; lo must not exceed hi.")
        return low, high
    number = int_param("connect4", key, value, MIN_SIDE, MAX_SIDE)
    return number, number


def cell_words(cell: tuple[int, int]) -> str:
    """A cell given as [row, col] counted from 0 (row 0 the top), in the board's words: its
    column as the board numbers it, its row counted from the top (rows have no labels)."""
    row, col = cell
    return f"column {col + 1}, row {row + 1} from the top (forbidden=[{row}, {col}], counted from 0)"


def _describe(side: tuple[int, int]):
    return side[0] if side[0] == side[1] else list(side)


def _describe_side(side: tuple[int, int]) -> str:
    """A side's length, or its range where boards are drawn per game: "6", "9-12"."""
    return str(side[0]) if side[0] == side[1] else f"{side[0]}-{side[1]}"


class Connect4(KernelGame):
    name = "connect4"
    planes = 5
    state_size = STATE_SIZE
    state_dtype = np.int16
    num_symmetries = 2
    kernels = Kernels(legal_actions, play, status, to_move, ply, encode, random_playout)

    def __init__(self, **params):
        check_param_names(self.name, params, ("rows", "cols", "forbidden"))
        self.rows = _side_param("rows", params.get("rows", [9, 12]))
        self.cols = _side_param("cols", params.get("cols", [9, 12]))
        varies = self.rows[0] != self.rows[1] or self.cols[0] != self.cols[1]
        self.forbidden = self._forbidden_param(params.get("forbidden", "random" if varies else None))
        self.height, self.width = self.rows[1], self.cols[1]
        self.num_actions = self.cols[1]
        self.dirichlet_alpha = round(10.0 / (sum(self.cols) / 2), 2)
        self._symmetry_cache: dict = {}

    def _forbidden_param(self, value):
        """null, random, or the cell [row, col] counted from 0 from the top-left cell (the
        form checkpoints and configs store); every message echoes it in the board's words."""
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null", "")):
            return None
        if isinstance(value, str) and value.lower() == "random":
            return "random"
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise GameError(f"connect4 parameter forbidden must be null, random or [row, col] counted "
                            f"from 0 from the top-left cell ([0, 0] is column 1, the top row), "
                            f"not '{value}'.")
        try:
            row, col = (int_param(self.name, "forbidden", v, 0, MAX_SIDE - 1) for v in value)
        except GameError:
            raise GameError(f"connect4 parameter forbidden=[row, col] takes two whole numbers from 0 "
                            f"to {MAX_SIDE - 1}, counted from the top-left cell, not {list(value)}.") from None
        if row >= self.rows[0] or col >= self.cols[0]:
            raise GameError(f"connect4 forbidden cell {cell_words((row, col))} is off the smallest "
                            f"board this game can draw ({self.rows[0]} rows, {self.cols[0]} columns).")
        return (row, col)

    def params(self) -> dict:
        forbidden = list(self.forbidden) if isinstance(self.forbidden, tuple) else self.forbidden
        return {"rows": _describe(self.rows), "cols": _describe(self.cols), "forbidden": forbidden}

    def presentation(self) -> Presentation:
        course = self.rows == (9, 12) and self.cols == (9, 12) and self.forbidden == "random"
        rules = "Discs fall to the lowest free cell of a column; four in a row wins; a full board is a draw."
        variant = ""
        if course:
            variant = "course rules: 9-12 rows and columns, one forbidden cell"
            rules = ("Discs fall to the lowest free cell of a column; four in a row wins. Each game "
                     "draws a board of 9 to 12 rows and columns with one forbidden cell that no disc "
                     "may fill: discs land on top of it, and it breaks lines.")
        elif self.forbidden is not None:
            variant = "one forbidden cell"
            rules += " No disc may fill the forbidden cell: discs land on top of it, and it breaks lines."
        board = "" if course else f"{_describe_side(self.rows)}×{_describe_side(self.cols)}"
        return Presentation(name="Connect-4", rules=rules, variant=variant, board=board,
                            side_names=("Red", "Yellow"), board_style="columns",
                            blocked_reason="This is the forbidden cell: no disc may fill it "
                                           "(discs land on top of it).")

    def played_by(self, trained: dict) -> bool:
        """Every board inside the trained ranges; a network trained with a random forbidden
        cell plays any forbidden cell or none (the cell is one input plane, and every state
        has the same layout whatever the board's size)."""
        try:
            family = Connect4(**trained)
        except GameError:
            return False
        inside = all(lo <= mine[0] and mine[1] <= hi for mine, (lo, hi)
                     in ((self.rows, family.rows), (self.cols, family.cols)))
        return inside and family.forbidden in ("random", self.forbidden)

    def new_state(self, rng: np.random.Generator | None = None) -> np.ndarray:
        rng = rng if rng is not None else np.random.default_rng()
        rows = int(rng.integers(self.rows[0], self.rows[1] + 1))
        cols = int(rng.integers(self.cols[0], self.cols[1] + 1))
        forbidden = self.forbidden
        if forbidden == "random":
            cell = int(rng.integers(rows * cols))
            forbidden = (cell // cols, cell % cols)
        return self._state_of(np.zeros((rows, cols), dtype=np.int8), forbidden, ONGOING)

    def board_params(self, state: np.ndarray) -> dict:
        forbidden = _forbidden(state)
        return {"rows": int(state[ROWS]), "cols": int(state[COLS]),
                "forbidden": list(forbidden) if forbidden else None}

    def _state_of(self, board: np.ndarray, forbidden, game_status: int) -> np.ndarray:
        state = np.zeros(self.state_size, dtype=self.state_dtype)
        _fill_state(state, board, *(forbidden if forbidden is not None else (-1, -1)), game_status)
        return state

    def symmetries(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Identity and the mirror of this board within its own columns; padding stays put."""
        rows, cols = int(state[ROWS]), int(state[COLS])
        if (rows, cols) not in self._symmetry_cache:
            canvas_row, canvas_col = np.indices((self.height, self.width))
            on_board = (canvas_row >= self.height - rows) & (canvas_col < cols)
            mirrored_col = np.where(on_board, cols - 1 - canvas_col, canvas_col)
            cells = np.stack([np.arange(self.height * self.width),
                              (canvas_row * self.width + mirrored_col).ravel()])
            actions = np.arange(self.num_actions)
            actions = np.stack([actions, np.where(actions < cols, cols - 1 - actions, actions)])
            self._symmetry_cache[(rows, cols)] = (cells.astype(np.int64), actions.astype(np.int64))
        cells, actions = self._symmetry_cache[(rows, cols)]
        return cells.copy(), actions.copy()

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        if g == 0:
            return state.copy()
        if g != 1:
            raise GameError(f"connect4 has symmetries 0 and 1, not {g}.")
        forbidden = _forbidden(state)
        if forbidden is not None:
            forbidden = (forbidden[0], int(state[COLS]) - 1 - forbidden[1])
        return self._state_of(np.ascontiguousarray(_board(state)[:, ::-1]), forbidden, int(state[STATUS]))

    def board(self, state: np.ndarray) -> np.ndarray:
        """int8 [rows, cols], row 0 the top: 0 empty, 1 the first player, 2 the second."""
        return _board(state)

    def render(self, state: np.ndarray) -> str:
        board, forbidden = _board(state), _forbidden(state)
        width = 2 if board.shape[1] < 10 else 3
        lines = []
        for r, row in enumerate(board):
            marks = [FORBIDDEN_MARK if (r, c) == forbidden else STONES[v] for c, v in enumerate(row)]
            lines.append("".join(m.rjust(width) for m in marks))
        lines.append("".join(str(c + 1).rjust(width) for c in range(board.shape[1])))
        if forbidden is not None:
            lines.append(f"{FORBIDDEN_MARK} is the forbidden cell: {cell_words(forbidden)}.")
        sides = [self.presentation().side(seat) for seat in (0, 1)]
        game_status = int(state[STATUS])
        if game_status == ONGOING:
            lines.append(f"{sides[int(state[PLY]) & 1]} to move")
        elif game_status == DRAW:
            lines.append("draw")
        else:
            lines.append(f"{sides[game_status - FIRST_WON]} won")
        return "\n".join(lines)

    def parse_move(self, state: np.ndarray, text: str) -> int:
        cols = int(state[COLS])
        word = str(text).strip()
        if not (word.isascii() and word.isdigit()):
            raise GameError(f"'{text}' is not a connect4 move; give a column number from 1 to {cols}.")
        col = int(word) - 1
        if not 0 <= col < cols:
            raise GameError(f"column {word} is off the board; columns go from 1 to {cols}.")
        if state[STATUS] != ONGOING:
            raise GameError(f"column {word} cannot be played: the game is over.")
        if state[HEIGHT + col] < 0:
            raise GameError(f"column {word} is full.")
        return col

    def format_move(self, state: np.ndarray, action: int) -> str:
        return str(int(action) + 1)


GAME = Connect4
