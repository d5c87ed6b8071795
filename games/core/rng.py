"""A tiny xorshift64* generator for Numba kernels: faster than np.random in hot loops, and
its whole state is one uint64 (kept in a uint64[1] array) so it is easy to seed and copy."""
import numpy as np
from numba import njit


def make_rng(seed: int) -> np.ndarray:
    """A generator state for `seed`; never zero (xorshift's fixed point)."""
    mixed = (int(seed) * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % (1 << 64)
    return np.array([mixed or 1], dtype=np.uint64)


@njit(cache=True, inline="always")
def next_u64(rng):
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always")
def rand_below(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift, no division)."""
    return np.int64(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
