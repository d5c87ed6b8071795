"""The bounded replay buffer of (planes, pi, z) samples, augmented by symmetries.

Storage is compact: input planes as uint8 (they hold small whole numbers, in practice
0/1 features), policy targets as float16, outcomes as float32 (room for scores, not only
-1/0/1). Every position is stored together with all G images under its symmetry group, so
sampling is a plain uniform draw.
"""
from __future__ import annotations

import numpy as np
import torch


def _permute_last_axis(values: np.ndarray, permutations: np.ndarray) -> np.ndarray:
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


def _move_planes(images: np.ndarray, plane_symmetries: np.ndarray) -> np.ndarray:
    """images [n, G, P, ...] with image g's plane p moved to plane plane_symmetries[g, p]."""
    moved = np.empty_like(images)
    for g, destinations in enumerate(plane_symmetries):
        moved[:, g, destinations] = images[:, g]
    return moved


class ReplayBuffer:
    """A ring buffer of at most `capacity` samples; the oldest are overwritten first."""

    def __init__(self, capacity: int, planes: int, height: int, width: int, num_actions: int,
                 plane_symmetries: np.ndarray | None = None):
        """plane_symmetries int64[G, planes]: where symmetry g sends each input plane (the
        game's `plane_symmetries`); None: every symmetry keeps the planes where they are."""
        if capacity < 1:
            raise ValueError(f"replay capacity must be at least 1, not {capacity}.")
        self.capacity = capacity
        self.planes = np.zeros((capacity, planes, height, width), dtype=np.uint8)
        self.pis = np.zeros((capacity, num_actions), dtype=np.float16)
        self.zs = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next_index = 0
        self.total_added = 0  # samples ever written, symmetry images included
        self.plane_symmetries = plane_symmetries

    def __len__(self) -> int:
        return self.size

    def add_game(self, planes: np.ndarray, pis: np.ndarray, zs: np.ndarray,
                 cell_syms: np.ndarray, action_syms: np.ndarray) -> None:
        """Store n positions with all their symmetry images (n * G samples).

        planes [n, P, H, W] uint8 as self-play records them (another dtype must hold whole
        numbers from 0 to 255), pis float32 [n, A], zs float32 [n], cell_syms [n, G, H*W] and
        action_syms [n, G, A] integer index maps (games.core.base contract).
        """
        n, groups = cell_syms.shape[:2]
        sample_shape = self.planes.shape[1:]
        if planes.shape[1:] != sample_shape or pis.shape[1:] != self.pis.shape[1:]:
            raise ValueError(f"game samples of shape {planes.shape[1:]} / {pis.shape[1:]} do not fit "
                             f"a replay buffer of shape {sample_shape} / {self.pis.shape[1:]}.")
        packed = planes.astype(np.uint8, copy=False)
        if not np.array_equal(packed, planes):
            raise ValueError("input planes must hold whole numbers from 0 to 255 to be stored as uint8.")
        flat = packed.reshape(n, sample_shape[0], -1)
        plane_images = _permute_last_axis(flat, cell_syms)  # [n, G, P, H*W]
        if self.plane_symmetries is not None:
            plane_images = _move_planes(plane_images, self.plane_symmetries)
        plane_images = plane_images.reshape((n * groups,) + sample_shape)
        pi_images = _permute_last_axis(pis.astype(np.float16), action_syms).reshape(n * groups, -1)
        z_images = np.repeat(np.asarray(zs, dtype=np.float32), groups)
        self._write(plane_images, pi_images, z_images)

    def _write(self, planes: np.ndarray, pis: np.ndarray, zs: np.ndarray) -> None:
        count = len(zs)
        self.total_added += count
        # More samples than room: only the newest `capacity` would survive anyway.
        keep = min(count, self.capacity)
        slots = (self.next_index + count - keep + np.arange(keep)) % self.capacity
        self.planes[slots] = planes[count - keep:]
        self.pis[slots] = pis[count - keep:]
        self.zs[slots] = zs[count - keep:]
        self.next_index = (self.next_index + count) % self.capacity
        self.size = min(self.size + count, self.capacity)

    def sample(self, batch_size: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A uniform draw with replacement: planes float32 [b, P, H, W], pi float32 [b, A],
        z float32 [b]. Targets stay as stored: float16 pi sums to 1 within about 1e-3."""
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer.")
        index = rng.integers(0, self.size, batch_size)
        return (self.planes[index].astype(np.float32), self.pis[index].astype(np.float32),
                self.zs[index])

    def _oldest_first(self, array: np.ndarray) -> np.ndarray:
        if self.size < self.capacity:
            return array[:self.size]
        return np.concatenate((array[self.next_index:], array[:self.next_index]))

    def state_dict(self) -> dict:
        """Samples oldest first, as tensors, plus counters: loads with weights_only=True."""
        return {"planes": torch.from_numpy(self._oldest_first(self.planes)),
                "pis": torch.from_numpy(self._oldest_first(self.pis)),
                "zs": torch.from_numpy(self._oldest_first(self.zs)),
                "total_added": self.total_added}

    def load_state_dict(self, state: dict) -> None:
        """Restore saved samples; a smaller buffer keeps the newest that fit."""
        planes, pis = state["planes"].numpy(), state["pis"].numpy()
        if planes.shape[1:] != self.planes.shape[1:] or pis.shape[1:] != self.pis.shape[1:]:
            raise ValueError(f"the saved replay buffer holds samples of shape {planes.shape[1:]} / "
                             f"{pis.shape[1:]}, but this game needs {self.planes.shape[1:]} / "
                             f"{self.pis.shape[1:]}.")
        self.size = self.next_index = 0
        self._write(planes, pis, state["zs"].numpy())
        self.total_added = int(state["total_added"])
