"""Symmetry images of arrays laid out as the game contract's maps say (games.core.base)."""
from __future__ import annotations

import numpy as np


def permute_last_axis(values: np.ndarray, permutations: np.ndarray) -> np.ndarray:
    """Images of values [n, ..., L] under permutations int64 [n, G, L] -> [n, G, ..., L],
    where image g puts values[..., i] at position permutations[g, i]."""
    n, groups, length = permutations.shape
    inverse = np.empty_like(permutations)
    np.put_along_axis(inverse, permutations,
                      np.broadcast_to(np.arange(length), permutations.shape), axis=2)
    middle = values.shape[1:-1]
    # Gather through the inverse: image[g, ..., j] = values[..., inverse[g, j]].
    index = inverse.reshape((n, groups) + (1,) * len(middle) + (length,))
    return np.take_along_axis(values[:, None], index, axis=-1)
