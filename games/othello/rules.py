"""Othello on 8x8 with two rule sets, as bitboard kernels.

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
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from games.core.base import DRAW, FIRST_WON, ONGOING, SECOND_WON, Game, GameError, check_param_names
from games.core.rng import rand_below

SIZE = 8
CELLS = 64
PASS = 64
BLACK, WHITE, TO_MOVE, PLY, STATUS, RULES = range(6)
COURSE, STANDARD = 0, 1
RULE_NAMES = ("course", "standard")

U1, U2, U4, U8, U56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(8), np.uint64(56)
BYTE_ONES = np.uint64(0x0101010101010101)
BYTE_HIGH = np.uint64(0x8080808080808080)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
INNER_COLUMNS = np.uint64(0x7E7E7E7E7E7E7E7E)  # runs along rows and diagonals kept here never wrap
CENTRAL = np.uint64(0x007E7E7E7E7E7E00)        # rows and columns 1..6
CORNERS = np.uint64(0x8100000000000081)
STANDARD_BLACK = np.uint64((1 << 28) | (1 << 35))  # e4 and d5
STANDARD_WHITE = np.uint64((1 << 27) | (1 << 36))  # d4 and e5
SHIFT_E, SHIFT_S, SHIFT_SW, SHIFT_SE = np.uint64(1), np.uint64(8), np.uint64(7), np.uint64(9)


def rays(steps) -> np.ndarray:
    """uint64[len(steps), 64]: for each (row, col) step and cell, the cells beyond it that way."""
    table = np.zeros((len(steps), CELLS), dtype=np.uint64)
    for d, (dr, dc) in enumerate(steps):
        for cell in range(CELLS):
            row, col = divmod(cell, SIZE)
            row, col = row + dr, col + dc
            while 0 <= row < SIZE and 0 <= col < SIZE:
                table[d, cell] |= np.uint64(1 << (row * SIZE + col))
                row, col = row + dr, col + dc
    return table


RAYS_UP = rays([(0, 1), (1, -1), (1, 0), (1, 1)])       # towards higher bit indices
RAYS_DOWN = rays([(0, -1), (-1, 1), (-1, 0), (-1, -1)])  # towards lower bit indices
TOP_BIT = np.uint64(1 << 63)


@njit(cache=True, inline="always")
def byte_counts(x):
    """Each byte of `x` replaced by its number of set bits."""
    x = x - ((x >> U1) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> U2) & np.uint64(0x3333333333333333))
    return (x + (x >> U4)) & np.uint64(0x0F0F0F0F0F0F0F0F)


@njit(cache=True, inline="always")
def popcount(x):
    return np.int64((byte_counts(x) * BYTE_ONES) >> U56)


@njit(cache=True, inline="always")
def nth_set_bit(bits, n):
    """Index of the n-th (from 0) set bit of `bits`: find its byte from the running per-byte
    counts, then step through that byte."""
    running = byte_counts(bits) * BYTE_ONES  # byte i: set bits in bytes 0..i
    beyond_n = ((running | BYTE_HIGH) - np.uint64(n + 1) * BYTE_ONES) & BYTE_HIGH
    shift = trailing_zeros(beyond_n) & np.uint64(56)  # 8 * (first byte whose running count > n)
    rest = bits >> shift
    for _ in range(n - np.int64(((running << U8) >> shift) & np.uint64(0xFF))):
        rest &= rest - U1
    return np.int64(shift + trailing_zeros(rest))


def fast_pdep() -> bool:
    """Whether the CPU Numba compiles for has PDEP (BMI2) in fast hardware: not on AMD before
    Zen 3, where it is microcode and far slower than nth_set_bit."""
    if config.CPU_NAME and config.CPU_NAME != "host":  # NUMBA_CPU_NAME, NUMBA_CPU_FEATURES
        name, has = config.CPU_NAME, "+bmi2" in (config.CPU_FEATURES or "")
    else:
        name = llvm_binding.get_host_cpu_name()
        has = bool(llvm_binding.get_host_cpu_features().get("bmi2"))
    return has and name not in ("znver1", "znver2", "bdver2", "bdver3", "bdver4")


@intrinsic
def pdep(typingctx, source, mask):
    """x86 PDEP: the bits of `source` deposited at the set bits of `mask`, lowest first."""
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)
    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True, inline="always")
def nth_bit_pdep(bits, n):
    """The n-th (from 0) set bit of `bits`, as a one-bit board (one PDEP)."""
    return pdep(U1 << np.uint64(n), bits)


@njit(cache=True, inline="always")
def nth_bit_portable(bits, n):
    """The same without PDEP."""
    return U1 << np.uint64(nth_set_bit(bits, n))


# The random playout's pick of its k-th legal cell: PDEP where it is fast hardware (about a
# fifth off a playout's time on Intel), the byte-count search elsewhere.
nth_bit = nth_bit_pdep if fast_pdep() else nth_bit_portable


@njit(cache=True, inline="always")
def runs_from(seeds, line, shift):
    """Cells of `line` in unbroken runs that start next to a seed, both ways along `shift`.

    Parallel prefix: two single steps, then two double steps, reach the longest run (6)."""
    forward = line & (seeds << shift)
    backward = line & (seeds >> shift)
    forward |= line & (forward << shift)
    backward |= line & (backward >> shift)
    pairs_forward = line & (line << shift)
    pairs_backward = pairs_forward >> shift
    double = shift + shift
    forward |= pairs_forward & (forward << double)
    backward |= pairs_backward & (backward >> double)
    forward |= pairs_forward & (forward << double)
    backward |= pairs_backward & (backward >> double)
    return forward, backward


@njit(cache=True, inline="always")
def flipping_moves(own, opp):
    """Empty cells where `own` would bracket at least one line of `opp` discs."""
    sideways = opp & INNER_COLUMNS
    reach = np.uint64(0)
    f, b = runs_from(own, sideways, SHIFT_E)
    reach |= (f << SHIFT_E) | (b >> SHIFT_E)
    f, b = runs_from(own, opp, SHIFT_S)
    reach |= (f << SHIFT_S) | (b >> SHIFT_S)
    f, b = runs_from(own, sideways, SHIFT_SW)
    reach |= (f << SHIFT_SW) | (b >> SHIFT_SW)
    f, b = runs_from(own, sideways, SHIFT_SE)
    reach |= (f << SHIFT_SE) | (b >> SHIFT_SE)
    return reach & ~(own | opp)


@njit(cache=True, inline="always")
def rule_masks(rules):
    """(cells always legal when empty, cells that may ever be played) for a rule set."""
    if rules == COURSE:
        return CENTRAL, ~CORNERS
    return np.uint64(0), ALL


@njit(cache=True, inline="always")
def legal_cells(own, opp, free, playable):
    return (flipping_moves(own, opp) | (free & ~(own | opp))) & playable


@njit(cache=True, inline="always")
def flips_of(own, opp, square):
    """Opponent discs that a disc on `square` turns over: along each ray, the opponent discs
    before the first cell that is not an opponent disc, if that cell is the mover's.

    Branch-free (branches on these tests mispredict often in random games): `closer` is that
    nearest cell if it is the mover's, else 0, and the flips are the ray's cells before it."""
    flips = np.uint64(0)
    for d in range(4):
        ray = RAYS_UP[d, square]  # nearest cell = lowest bit
        stop = ray & ~opp
        closer = stop & (~stop + U1) & own
        flips |= ray & (closer - np.uint64(closer != 0))  # the bits below it; none if 0
        ray = RAYS_DOWN[d, square]  # nearest cell = highest bit
        stop = ray & ~opp
        # no stop: 64 leading zeros, masked to a shift of 0, gives bit 63, never on this ray
        closer = (TOP_BIT >> (leading_zeros(stop) & np.uint64(63))) & own & ray
        flips |= ray & (~(closer << U1) + U1)  # the bits above it; none if 0
    return flips


# --- the random playout's move generator and flips, as LLVM vector code ----------------------
# Same results as flipping_moves and flips_of (tests/test_othello.py), about a quarter off a
# playout's time: LLVM does not vectorise the scalar kernels by itself, so these intrinsics
# write the vector IR directly (target-independent: AVX2/AVX-512 shifts and logic on x86,
# scalar code where there are no vectors). One <4 x i64> holds the four directions towards
# higher bits (E, S, SW, SE: shifts 1, 8, 7, 9), another the same four towards lower bits; each
# lane keeps only the opponent discs with a neighbour both ways along it, so no shift wraps.

_I64 = ir.IntType(64)
_V4 = ir.VectorType(_I64, 4)


def _lanes(values):
    return ir.Constant(_V4, [ir.Constant(_I64, int(v)) for v in values])


_STEP, _DOUBLE_STEP = _lanes([1, 8, 7, 9]), _lanes([2, 16, 14, 18])
_LINES = _lanes([INNER_COLUMNS, 0x00FFFFFFFFFFFF00, CENTRAL, CENTRAL])


def _splat(b, x):
    """x in all four lanes."""
    v = b.insert_element(ir.Constant(_V4, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
    return b.shuffle_vector(v, ir.Constant(_V4, ir.Undefined),
                            ir.Constant(ir.VectorType(ir.IntType(32), 4), [0, 0, 0, 0]))


def _or_lanes(b, v):
    """The OR of the four lanes, as one i64."""
    undefined = ir.Constant(_V4, ir.Undefined)
    for order in ([2, 3, 0, 1], [1, 0, 3, 2]):
        swap = ir.Constant(ir.VectorType(ir.IntType(32), 4), order)
        v = b.or_(v, b.shuffle_vector(v, undefined, swap))
    return b.extract_element(v, ir.Constant(ir.IntType(32), 0))


def _fill(b, first, line, shift):
    """Cells of `line` in unbroken runs from the cells `first` (seeds already one step on),
    along each lane's direction: the first cells, one more step, then two double steps
    (parallel prefix), which reach the longest run (6)."""
    run = b.and_(line, first)
    run = b.or_(run, b.and_(line, shift(run, _STEP)))
    pairs = b.and_(line, shift(line, _STEP))
    run = b.or_(run, b.and_(pairs, shift(run, _DOUBLE_STEP)))
    return b.or_(run, b.and_(pairs, shift(run, _DOUBLE_STEP)))


def _runs(b, own, opp):
    """The runs of opponent discs that start next to a mover's disc, (up, down) lanes."""
    mover, line = _splat(b, own), b.and_(_splat(b, opp), _LINES)
    return (_fill(b, b.shl(mover, _STEP), line, b.shl),
            _fill(b, b.lshr(mover, _STEP), line, b.lshr))


@intrinsic
def flipping_moves_vec(typingctx, own, opp):
    """flipping_moves(own, opp), vectorised."""
    def codegen(context, b, signature, args):
        up, down = _runs(b, *args)
        reach = _or_lanes(b, b.or_(b.shl(up, _STEP), b.lshr(down, _STEP)))
        return b.and_(reach, b.not_(b.or_(*args)))
    return types.uint64(types.uint64, types.uint64), codegen


@intrinsic
def flips_vec(typingctx, own, opp, bit):
    """flips_of(own, opp, the cell of one-bit board `bit`), vectorised: the runs that end next
    to the new disc, filled back from it inside the runs (a run always starts at a mover's
    disc, so no check of the far end is needed)."""
    def codegen(context, b, signature, args):
        up, down = _runs(b, args[0], args[1])
        disc = _splat(b, args[2])
        back_up = _fill(b, b.lshr(disc, _STEP), up, b.lshr)
        back_down = _fill(b, b.shl(disc, _STEP), down, b.shl)
        return _or_lanes(b, b.or_(back_up, back_down))
    return types.uint64(types.uint64, types.uint64, types.uint64), codegen


@njit(cache=True, inline="always")
def legal_cells_vec(own, opp, free, playable):
    return (flipping_moves_vec(own, opp) | (free & ~(own | opp))) & playable


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


class Othello(Game):
    name = "othello"
    num_actions = CELLS + 1
    planes = 4
    height = SIZE
    width = SIZE
    state_size = 6
    state_dtype = np.int64
    num_symmetries = 8
    kernels = {"legal_actions": legal_actions, "play": play, "status": status,
               "to_move": to_move, "ply": ply, "encode": encode, "random_playout": random_playout}

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
        black, white = int((board == 1).sum()), int((board == -1).sum())
        lines.append(f"X (black) {black}, O (white) {white}; {self.rules} rules"
                     + ("; # = corner, never played." if self.rule_code == COURSE else "."))
        outcome = int(state[STATUS])
        if outcome == ONGOING:
            lines.append(f"{'XO'[int(state[TO_MOVE])]} to move.")
        elif outcome == DRAW:
            lines.append("Game over: draw.")
        else:
            lines.append(f"Game over: {'X' if outcome == FIRST_WON else 'O'} wins.")
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
