"""Othello's move generation on uint64 bitboards (bit row*8 + col): legal cells and flips."""
from __future__ import annotations

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

SIZE = 8
CELLS = 64
COURSE, STANDARD = 0, 1  # the rule sets' codes (games.othello.rules)

U1, U2, U4, U8, U56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(8), np.uint64(56)
BYTE_ONES = np.uint64(0x0101010101010101)
BYTE_HIGH = np.uint64(0x8080808080808080)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
INNER_COLUMNS = np.uint64(0x7E7E7E7E7E7E7E7E)  # runs along rows and diagonals kept here never wrap
CENTRAL = np.uint64(0x007E7E7E7E7E7E00)        # rows and columns 1..6
CORNERS = np.uint64(0x8100000000000081)
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
