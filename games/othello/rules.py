"""Othello on 8x8 with two rule sets: the state's kernels, encoding and notation (the move
generation they use is games.othello.bitboard).

`rules=course` (default): the board starts empty; the four corners are never played; any
empty cell of the central 6x6 is always legal (it flips what it brackets, maybe nothing);
an empty outer-ring cell is legal only if it flips. `rules=standard`: classic Othello, every
move must flip. In both, Black moves first; a side without a move passes (action 64, then its
only action); the game ends when neither side can move; more discs wins.

State (int64[6]): the black and white bitboards (bit row*8 + col, row 0 at the top, stored as
int64 bit patterns), the side to move, the ply, the status and the rule set. Action = row*8 + col,
64 = pass. Encoded planes, from the mover's view: own discs, opponent discs, legal cells, ones.
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from games.core.base import (DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, KernelGame, Kernels,
                             check_param_names)
from games.core.presentation import Presentation
from games.core.rng import rand_below
from games.othello.bitboard import (CELLS, COURSE, SIZE, STANDARD, U1, flips_of, flips_vec,
                                    legal_cells, legal_cells_vec, nth_bit, popcount, rule_masks)

PASS = 64
BLACK, WHITE, TO_MOVE, PLY, STATUS, RULES = range(6)
RULE_NAMES = ("course", "standard")
STANDARD_BLACK = np.uint64((1 << 28) | (1 << 35))  # e4 and d5
STANDARD_WHITE = np.uint64((1 << 27) | (1 << 36))  # d4 and e5


@njit(cache=True, inline="always")
def final_status(black, white):
    difference = popcount(black) - popcount(white)
    if difference > 0:
        return FIRST_WON
    if difference < 0:
        return SECOND_WON
    return DRAW


@njit(cache=True, inline="always")
def sides(state):
    """(mover's discs, opponent's discs) as uint64."""
    black, white = np.uint64(state[BLACK]), np.uint64(state[WHITE])
    if state[TO_MOVE] == 0:
        return black, white
    return white, black


@njit(cache=True, inline="always")
def store(state, mover, opp, side):
    """Write the boards back with `side` (0 black, 1 white) to play, `mover` being its discs."""
    if side == 0:
        state[BLACK], state[WHITE] = np.int64(mover), np.int64(opp)
    else:
        state[BLACK], state[WHITE] = np.int64(opp), np.int64(mover)
    state[TO_MOVE] = side


@njit(cache=True)
def legal_actions(state, mask):
    mask[:] = False
    if state[STATUS] != ONGOING:
        return 0
    own, opp = sides(state)
    free, playable = rule_masks(state[RULES])
    moves = legal_cells(own, opp, free, playable)
    if moves == 0:
        mask[PASS] = True
        return 1
    count = 0
    while moves:
        mask[trailing_zeros(moves)] = True
        moves &= moves - U1
        count += 1
    return count


@njit(cache=True)
def play(state, action):
    own, opp = sides(state)
    if action != PASS:
        flips = flips_of(own, opp, action)
        own |= (U1 << np.uint64(action)) | flips
        opp &= ~flips
    store(state, opp, own, 1 - state[TO_MOVE])
    state[PLY] += 1
    free, playable = rule_masks(state[RULES])
    if legal_cells(opp, own, free, playable) == 0 and legal_cells(own, opp, free, playable) == 0:
        state[STATUS] = final_status(np.uint64(state[BLACK]), np.uint64(state[WHITE]))


@njit(cache=True)
def status(state):
    return state[STATUS]


@njit(cache=True)
def to_move(state):
    return state[TO_MOVE]


@njit(cache=True)
def ply(state):
    return state[PLY]


@njit(cache=True)
def encode(state, out):
    own, opp = sides(state)
    free, playable = rule_masks(state[RULES])
    moves = legal_cells(own, opp, free, playable) if state[STATUS] == ONGOING else np.uint64(0)
    for cell in range(CELLS):
        bit = U1 << np.uint64(cell)
        row, col = cell // SIZE, cell % SIZE
        out[0, row, col] = 1.0 if own & bit else 0.0
        out[1, row, col] = 1.0 if opp & bit else 0.0
        out[2, row, col] = 1.0 if moves & bit else 0.0
        out[3, row, col] = 1.0


@njit(cache=True)
def random_playout(state, rng):
    if state[STATUS] != ONGOING:
        return state[STATUS]
    own, opp = sides(state)
    mover = state[TO_MOVE]
    plies = state[PLY]
    free, playable = rule_masks(state[RULES])
    moves = legal_cells_vec(own, opp, free, playable)
    while True:
        if moves != 0:
            bit = nth_bit(moves, rand_below(rng, popcount(moves)))
            flips = flips_vec(own, opp, bit)
            own |= bit | flips
            opp &= ~flips
        own, opp = opp, own
        mover = 1 - mover
        plies += 1
        moves = legal_cells_vec(own, opp, free, playable)
        if moves == 0 and legal_cells_vec(opp, own, free, playable) == 0:
            break
    store(state, own, opp, mover)
    state[PLY] = plies
    state[STATUS] = final_status(np.uint64(state[BLACK]), np.uint64(state[WHITE]))
    return state[STATUS]


def square_symmetries() -> np.ndarray:
    """int64[8, 64]: where each cell goes under the 8 symmetries of the square, identity first."""
    rows, cols = np.divmod(np.arange(CELLS), SIZE)
    last = SIZE - 1
    images = [(rows, cols), (cols, last - rows), (last - rows, last - cols), (last - cols, rows),
              (rows, last - cols), (last - rows, cols), (cols, rows), (last - cols, last - rows)]
    return np.array([r * SIZE + c for r, c in images], dtype=np.int64)


def bits_to_cells(value) -> np.ndarray:
    """bool[64] from one int64 bitboard."""
    raw = np.array([value], dtype=np.int64).view(np.uint8)
    return np.unpackbits(raw, bitorder="little").astype(np.bool_)


def cells_to_bits(cells) -> np.int64:
    return np.packbits(np.asarray(cells, dtype=np.uint8), bitorder="little").view(np.int64)[0]


class Othello(KernelGame):
    name = "othello"
    num_actions = CELLS + 1
    planes = 4
    height = SIZE
    width = SIZE
    state_size = 6
    state_dtype = np.int64
    num_symmetries = 8
    pass_action = PASS
    kernels = Kernels(legal_actions, play, status, to_move, ply, encode, random_playout)

    def __init__(self, **params):
        check_param_names(self.name, params, ["rules"])
        rules = str(params.get("rules", "course")).strip().lower()
        if rules not in RULE_NAMES:
            raise GameError(f"othello parameter rules must be course or standard, "
                            f"not '{params['rules']}'.")
        self.rules = rules
        self.rule_code = RULE_NAMES.index(rules)
        # ~10 / typical legal-move count: course games start with 36 and average 17 in random
        # play; standard ones average 8.5.
        self.dirichlet_alpha = 0.5 if self.rule_code == COURSE else 1.2
        self.cell_maps = square_symmetries()
        self.action_maps = np.concatenate(
            [self.cell_maps, np.full((self.num_symmetries, 1), PASS, dtype=np.int64)], axis=1)

    def params(self) -> dict:
        return {"rules": self.rules}

    def presentation(self) -> Presentation:
        if self.rule_code == COURSE:
            return Presentation(
                name="Othello", variant="course rules: empty board, corners never played",
                rules=("The board starts empty and the four corners are never played. Any empty "
                       "cell of the central 6×6 may be played, turning the discs it brackets "
                       "(maybe none); an outer cell only where it turns some. A side without a "
                       "move passes; more discs wins."),
                board_style="squares", blocked_reason="The corners are never played in course Othello.")
        return Presentation(
            name="Othello", board="8×8", board_style="squares",
            rules=("Four discs start in the centre; every move must turn discs by bracketing them; "
                   "a side without a move passes; more discs wins."))

    def new_state(self, rng=None) -> np.ndarray:
        state = np.zeros(self.state_size, dtype=np.int64)
        if self.rule_code == STANDARD:
            state[BLACK] = np.int64(STANDARD_BLACK)
            state[WHITE] = np.int64(STANDARD_WHITE)
        state[RULES] = self.rule_code
        return state

    def symmetries(self, state):
        return self.cell_maps, self.action_maps

    def transform_state(self, state, g):
        out = state.copy()
        for side in (BLACK, WHITE):
            cells = np.zeros(CELLS, dtype=np.bool_)
            cells[self.cell_maps[g]] = bits_to_cells(state[side])
            out[side] = cells_to_bits(cells)
        return out

    def score(self, state) -> int:
        """Black's discs minus White's."""
        return int(bits_to_cells(state[BLACK]).sum()) - int(bits_to_cells(state[WHITE]).sum())

    def playable_empties(self, state) -> int:
        """Empty cells that can still be played (the course rules' corners never can)."""
        return int((self.board(state) == 0).sum()) - (4 if self.rule_code == COURSE else 0)

    def random_endgame(self, rng: np.random.Generator, empties: int) -> np.ndarray:
        """A position reached by uniformly random play with `empties` playable empty cells
        left, the game still going (the solver's tests and benchmark start from these)."""
        while True:
            state = self.new_state()
            while self.status(state) == ONGOING and self.playable_empties(state) > empties:
                self.play(state, int(rng.choice(self.legal_list(state))))
            if self.status(state) == ONGOING:
                return state

    def board(self, state) -> np.ndarray:
        """int8[8, 8]: 1 black, -1 white, 0 empty."""
        return (bits_to_cells(state[BLACK]).astype(np.int8)
                - bits_to_cells(state[WHITE]).astype(np.int8)).reshape(SIZE, SIZE)

    def render(self, state) -> str:
        board = self.board(state)
        lines = ["   " + " ".join("abcdefgh")]
        for row in range(SIZE):
            marks = []
            for col in range(SIZE):
                corner = self.rule_code == COURSE and row in (0, SIZE - 1) and col in (0, SIZE - 1)
                marks.append({1: "X", -1: "O"}.get(board[row, col], "#" if corner else "."))
            lines.append(f"{row + 1:2d} " + " ".join(marks))
        sides = [self.presentation().side(seat) for seat in (0, 1)]
        black, white = int((board == 1).sum()), int((board == -1).sum())
        lines.append(f"{sides[0]} {black}, {sides[1]} {white}; {self.rules} rules.")
        outcome = int(state[STATUS])
        if outcome == ONGOING:
            lines.append(f"{sides[int(state[TO_MOVE])]} to move.")
        elif outcome == DRAW:
            lines.append("Game over: draw.")
        else:
            lines.append(f"Game over: {sides[outcome - FIRST_WON]} wins.")
        return "\n".join(lines)

    def format_move(self, state, action) -> str:
        action = int(action)
        if action == PASS:
            return "pass"
        return f"{'abcdefgh'[action % SIZE]}{action // SIZE + 1}"

    def parse_move(self, state, text) -> int:
        word = str(text).strip().lower()
        if self.status(state) != ONGOING:
            raise GameError(f"the game is over, so '{text}' cannot be played.")
        mask = self.legal_mask(state)
        if word == "pass":
            if not mask[PASS]:
                raise GameError(f"pass is allowed only without a move, and this side has "
                                f"{int(mask.sum())} legal moves.")
            return PASS
        found = re.fullmatch(r"([a-h])([1-8])", word)
        if not found:
            raise GameError(f"cannot read move '{text}'; write a column a-h and a row 1-8 "
                            f"(such as d3), or pass.")
        action = (int(found.group(2)) - 1) * SIZE + "abcdefgh".index(found.group(1))
        if mask[action]:
            return action
        if self.board(state).flat[action] != 0:
            raise GameError(f"{word} is already occupied.")
        if self.rule_code == COURSE and action in (0, SIZE - 1, CELLS - SIZE, CELLS - 1):
            raise GameError(f"{word} is a corner, and corners are never played "
                            f"in the course rules.")
        must_pass = " (this side has no move and must pass)" if mask[PASS] else ""
        if self.rule_code == COURSE:
            raise GameError(f"{word} is on the outer ring and flips no disc, "
                            f"so it is not a legal move{must_pass}.")
        raise GameError(f"{word} flips no disc, so it is not a legal move{must_pass}.")


GAME = Othello
