"""Replay buffer: exact symmetry images (of planes and policies), ring wrap-around,
save/load, sampling."""
import numpy as np
import pytest
import torch

from alphazero.train.replay import ReplayBuffer

# Board transforms for the 8-fold square group (identity first) and a left-right mirror.
SQUARE_GROUP = [lambda b, k=k, f=f: np.rot90(np.flip(b, -1) if f else b, k, axes=(-2, -1))
                for f in (False, True) for k in range(4)]
MIRROR_GROUP = [lambda b: b, lambda b: np.flip(b, -1)]


def cell_maps(transforms, height: int, width: int) -> np.ndarray:
    """int64 [G, H*W]: cell i goes to cells[g, i], as games.core.base defines it."""
    cells = np.arange(height * width).reshape(height, width)
    return np.stack([np.argsort(t(cells).ravel()) for t in transforms]).astype(np.int64)


def random_game(rng, n, planes, height, width, num_actions):
    board = rng.integers(0, 2, (n, planes, height, width)).astype(np.float32)
    pis = rng.dirichlet(np.ones(num_actions), n).astype(np.float32)
    zs = rng.choice(np.array([-1, 0, 1], dtype=np.float32), n)
    return board, pis, zs


def test_square_group_images_are_exact_board_transforms():
    rng = np.random.default_rng(0)
    n, size = 3, 5
    board, pis, zs = random_game(rng, n, 2, size, size, size * size)
    cells = cell_maps(SQUARE_GROUP, size, size)
    syms = np.broadcast_to(cells, (n,) + cells.shape)
    buffer = ReplayBuffer(100, 2, size, size, size * size)
    buffer.add_game(board, pis, zs, syms, syms)  # one action per cell
    assert len(buffer) == buffer.total_added == n * 8
    for k in range(n):
        for g, transform in enumerate(SQUARE_GROUP):
            slot = k * 8 + g
            np.testing.assert_array_equal(buffer.planes[slot], transform(board[k]))
            want_pi = transform(pis[k].reshape(size, size)).ravel().astype(np.float16)
            np.testing.assert_array_equal(buffer.pis[slot], want_pi)
            assert buffer.zs[slot] == zs[k]


def test_mirror_group_on_a_wide_board_with_column_actions_and_a_pass():
    rng = np.random.default_rng(1)
    n, height, width = 4, 3, 5
    actions = width + 1  # drop in a column, or pass (fixed by every symmetry)
    board, pis, zs = random_game(rng, n, 3, height, width, actions)
    cells = cell_maps(MIRROR_GROUP, height, width)
    action_maps = np.array([np.arange(actions), np.r_[np.arange(width)[::-1], width]])
    buffer = ReplayBuffer(100, 3, height, width, actions)
    buffer.add_game(board, pis, zs, np.broadcast_to(cells, (n, 2, height * width)),
                    np.broadcast_to(action_maps, (n, 2, actions)))
    for k in range(n):
        np.testing.assert_array_equal(buffer.planes[2 * k], board[k])
        np.testing.assert_array_equal(buffer.planes[2 * k + 1], board[k][..., ::-1])
        mirrored_pi = np.r_[pis[k][:width][::-1], pis[k][width]].astype(np.float16)
        np.testing.assert_array_equal(buffer.pis[2 * k + 1], mirrored_pi)


def test_a_half_turn_that_exchanges_planes_moves_them_too():
    # Hex turned half a turn: a stone joined to one edge becomes one joined to the other
    # (games.core.base: plane_symmetries), so planes 1 and 2 change places in the image.
    rng = np.random.default_rng(3)
    n, size = 2, 4
    board, pis, zs = random_game(rng, n, 3, size, size, size * size)
    half_turn = np.array([np.arange(size * size), np.arange(size * size)[::-1]])
    buffer = ReplayBuffer(100, 3, size, size, size * size, plane_symmetries=np.array([[0, 1, 2], [0, 2, 1]]))
    syms = np.broadcast_to(half_turn, (n, 2, size * size))
    buffer.add_game(board, pis, zs, syms, syms)
    for k in range(n):
        np.testing.assert_array_equal(buffer.planes[2 * k], board[k])
        np.testing.assert_array_equal(buffer.planes[2 * k + 1], np.rot90(board[k], 2, axes=(-2, -1))[[0, 2, 1]])
        np.testing.assert_array_equal(buffer.pis[2 * k + 1], pis[k][::-1].astype(np.float16))


def test_per_position_permutations_follow_the_contract():
    # Each position has its own maps (games.core.base: symmetries are per state).
    rng = np.random.default_rng(2)
    n, groups, planes, height, width, actions = 3, 4, 2, 3, 4, 7
    board, pis, zs = random_game(rng, n, planes, height, width, actions)
    cells = np.stack([[rng.permutation(height * width) for _ in range(groups)] for _ in range(n)])
    action_maps = np.stack([[rng.permutation(actions) for _ in range(groups)] for _ in range(n)])
    buffer = ReplayBuffer(50, planes, height, width, actions)
    buffer.add_game(board, pis, zs, cells, action_maps)
    flat_images = buffer.planes.reshape(50, planes, -1)
    for k in range(n):
        for g in range(groups):
            slot = k * groups + g
            np.testing.assert_array_equal(flat_images[slot][:, cells[k, g]],
                                          board[k].reshape(planes, -1))
            np.testing.assert_array_equal(buffer.pis[slot][action_maps[k, g]],
                                          pis[k].astype(np.float16))


def identity_syms(n, groups, cells, actions):
    return (np.broadcast_to(np.arange(cells), (n, groups, cells)),
            np.broadcast_to(np.arange(actions), (n, groups, actions)))


def add_numbered_game(buffer, first_z, n, groups=2):
    """A game whose positions carry z = first_z, first_z + 1, ... to identify them."""
    zs = np.arange(first_z, first_z + n, dtype=np.float32)
    board = np.ones((n, 1, 2, 2), dtype=np.float32)
    pis = np.full((n, 3), 1 / 3, dtype=np.float32)
    buffer.add_game(board, pis, zs, *identity_syms(n, groups, 4, 3))


def test_capacity_wraps_and_keeps_the_newest():
    buffer = ReplayBuffer(10, 1, 2, 2, 3)
    add_numbered_game(buffer, 0, 3)
    add_numbered_game(buffer, 3, 3)
    assert len(buffer) == 10 and buffer.total_added == 12
    assert sorted(buffer.zs.tolist()) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    add_numbered_game(buffer, 100, 7)  # 14 samples into 10 slots
    assert len(buffer) == 10 and buffer.total_added == 26
    assert sorted(buffer.zs.tolist()) == [102, 102] + [z for z in range(103, 107) for _ in (0, 1)]


def test_non_binary_planes_are_rejected():
    buffer = ReplayBuffer(10, 1, 2, 2, 3)
    with pytest.raises(ValueError, match="whole numbers from 0 to 255"):
        buffer.add_game(np.full((1, 1, 2, 2), 0.5, np.float32), np.ones((1, 3), np.float32),
                        np.zeros(1, np.float32), *identity_syms(1, 1, 4, 3))


def test_save_and_load_round_trip(tmp_path):
    buffer = ReplayBuffer(10, 1, 2, 2, 3)
    for first in range(0, 12, 3):  # 24 samples: the ring has wrapped
        add_numbered_game(buffer, first, 3)
    torch.save(buffer.state_dict(), tmp_path / "replay.pt")
    state = torch.load(tmp_path / "replay.pt", weights_only=True)

    restored = ReplayBuffer(10, 1, 2, 2, 3)
    restored.load_state_dict(state)
    assert len(restored) == 10 and restored.total_added == buffer.total_added == 24
    assert state["zs"].tolist() == [7, 7, 8, 8, 9, 9, 10, 10, 11, 11]  # oldest first
    for key in ("planes", "pis", "zs"):
        assert torch.equal(restored.state_dict()[key], state[key])

    smaller = ReplayBuffer(4, 1, 2, 2, 3)
    smaller.load_state_dict(state)
    assert smaller.state_dict()["zs"].tolist() == [10, 10, 11, 11]
    with pytest.raises(ValueError, match="saved replay buffer holds samples of shape"):
        ReplayBuffer(10, 2, 2, 2, 3).load_state_dict(state)


def test_a_buffer_saved_with_ownership_targets_restores_without_them():
    buffer = ReplayBuffer(10, 1, 2, 2, 3)
    add_numbered_game(buffer, 0, 3)
    state = buffer.state_dict() | {"owners": torch.zeros((6, 4), dtype=torch.int8)}
    restored = ReplayBuffer(10, 1, 2, 2, 3)
    restored.load_state_dict(state)
    assert restored.state_dict().keys() == buffer.state_dict().keys()
    assert restored.state_dict()["zs"].tolist() == state["zs"].tolist()


def test_sample_shapes_and_dtypes():
    buffer = ReplayBuffer(20, 1, 2, 2, 3)
    with pytest.raises(ValueError, match="empty replay buffer"):
        buffer.sample(4, np.random.default_rng(0))
    add_numbered_game(buffer, 0, 5)
    planes, pis, zs = buffer.sample(16, np.random.default_rng(0))
    assert planes.shape == (16, 1, 2, 2) and pis.shape == (16, 3) and zs.shape == (16,)
    assert planes.dtype == pis.dtype == zs.dtype == np.float32
    assert set(zs.tolist()) <= set(range(5))
