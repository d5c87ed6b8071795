"""A game whose rules are ordinary Python methods: no Numba, no flat state layout to design.

A subclass writes a handful of methods over its own *positions*, Python objects of any kind
(a tuple, a small class, an OpenSpiel state) that are never changed once made:

    start_position() -> position            the start
    legal_moves(position) -> list[int]      its legal actions (empty once the game is over)
    next_position(position, action)         the position after a legal action (a new object)
    result(position) -> int                 ONGOING, FIRST_WON, SECOND_WON or DRAW
    side_to_move(position) -> int           0: the first player, 1: the second
    encode_position(position, out) -> None  fill float32 out[planes, height, width] (zeros on
                                            entry), from the view of the side to move, with
                                            whole numbers from 0 to 255 (games.core.base)
    move_name(position, action) -> str      the action's notation
    describe(position) -> str               the position as text for a terminal
    params() -> dict                        the parameters that rebuild the game

and may override `parse_move_name` (by default: the legal action whose `move_name` the text
is, ignoring case), `symmetry_maps` (by default the identity alone), `position_score` (None)
and the class attributes `pass_action` and `dirichlet_alpha`.

To the pipeline the state is still one flat array (games.core.base, principle 3): the moves
played from the start, `[ply, a1, a2, ...]` as int32, so it is copied, pickled and replayed
like any game's. The position for a state is computed once and kept in a cache (from the
cached position of its parent, so playing a move costs one `next_position`); the search
keeps the position of each of its nodes instead (alphazero.search.python_rules), so a
simulation asks the game for one step.
"""
from __future__ import annotations

import abc

import numpy as np

from games.core.base import ONGOING, STATUS_NAMES, Game, GameError
from games.core.rng import rand_below

PLY = 0  # state[PLY]: actions played; state[1 + i]: the i-th action
CACHE_LIMIT = 1 << 15  # positions kept per game object before the cache starts afresh


class PythonGame(Game):
    kernels = None
    state_dtype = np.int32
    num_symmetries = 1
    # A subclass says `max_plies` (games.core.base), the longest game: the state's length.

    # ------------------------------------------------------------------ what a game writes
    @abc.abstractmethod
    def start_position(self):
        """The start position."""

    @abc.abstractmethod
    def legal_moves(self, position) -> list[int]:
        """The legal actions; none once the game is over."""

    @abc.abstractmethod
    def next_position(self, position, action: int):
        """The position after a legal action, as a new object (`position` stays as it was)."""

    @abc.abstractmethod
    def result(self, position) -> int:
        """ONGOING, FIRST_WON, SECOND_WON or DRAW."""

    @abc.abstractmethod
    def side_to_move(self, position) -> int:
        """0 if the first player acts next, else 1."""

    @abc.abstractmethod
    def encode_position(self, position, out: np.ndarray) -> None:
        """Fill out[planes, height, width] (zeros on entry) from the view of the side to move."""

    @abc.abstractmethod
    def move_name(self, position, action: int) -> str:
        """The action's notation in this position."""

    @abc.abstractmethod
    def describe(self, position) -> str:
        """The position as text for a terminal."""

    def parse_move_name(self, position, text: str) -> int:
        """The legal action named `text`; GameError (one sentence) otherwise."""
        wanted = text.strip().lower()
        names = {self.move_name(position, a).lower(): a for a in self.legal_moves(position)}
        if wanted not in names:
            example = next(iter(names), "")
            raise GameError(f"'{text.strip()}' is not a legal move here; a legal move is "
                            f"written like {example}.")
        return int(names[wanted])

    def symmetry_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """(cells int64[G, height*width], actions int64[G, num_actions]), identity first, the
        same for every position (games.core.base); G = num_symmetries. The identity alone by
        default."""
        return (np.arange(self.height * self.width)[None], np.arange(self.num_actions)[None])

    def position_score(self, position) -> int | None:
        """The first player's score minus the second's, where the game counts one."""
        return None

    # ------------------------------------------------------------------ the contract, built on them
    @property
    def state_size(self) -> int:
        return 1 + self.max_plies

    def position(self, state: np.ndarray):
        """The position the moves in `state` reach: from the deepest cached position on
        their way (the start if none), one `next_position` per move after it."""
        ply = int(state[PLY])
        moves = state[1:1 + ply]
        cache = self._positions()
        known = ply
        while known > 0 and _key(moves, known) not in cache:
            known -= 1
        position = cache[_key(moves, known)] if known else self.start_position()
        for done in range(known, ply):
            position = self.next_position(position, int(moves[done]))
        if ply > known:
            self._remember(_key(moves, ply), position)
        return position

    def _positions(self) -> dict:
        if "_cache" not in self.__dict__:
            self._cache = {}
        return self._cache

    def _remember(self, key: bytes, position) -> None:
        cache = self._positions()
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = position

    def __getstate__(self) -> dict:
        """Pickled without its cache (positions may not pickle; they are recomputed)."""
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def new_state(self, rng: np.random.Generator | None = None) -> np.ndarray:
        return np.zeros(self.state_size, dtype=self.state_dtype)

    def legal_actions(self, state: np.ndarray, mask: np.ndarray) -> int:
        moves = self.legal_moves(self.position(state))
        mask[:] = False
        mask[moves] = True
        return len(moves)

    def play(self, state: np.ndarray, action: int) -> None:
        before = self.position(state)
        ply = int(state[PLY])
        if ply >= self.max_plies:
            raise GameError(f"{self.name} allows at most {self.max_plies} moves (max_plies).")
        state[1 + ply] = action
        state[PLY] = ply + 1
        self._remember(_key(state[1:], ply + 1), self.next_position(before, int(action)))

    def status(self, state: np.ndarray) -> int:
        return int(self.result(self.position(state)))

    def to_move(self, state: np.ndarray) -> int:
        return int(self.side_to_move(self.position(state)))

    def ply(self, state: np.ndarray) -> int:
        return int(state[PLY])

    def encode_into(self, state: np.ndarray, out: np.ndarray) -> None:
        out[:] = 0
        self.encode_position(self.position(state), out)

    def random_playout(self, state: np.ndarray, rng: np.ndarray) -> int:
        ply = int(state[PLY])
        code, moves = self.play_out(self.position(state), rng)
        state[1 + ply:1 + ply + len(moves)] = moves
        state[PLY] = ply + len(moves)
        return code

    def play_out(self, position, rng: np.ndarray) -> tuple[int, list[int]]:
        """Uniformly random legal actions from `position` to the end (`rng` a games.core.rng
        state): the final status and the actions played."""
        played = []
        moves = self.legal_moves(position)
        while moves:
            action = int(moves[rand_below(rng, len(moves))])
            position = self.next_position(position, action)
            played.append(action)
            moves = self.legal_moves(position)
        return int(self.result(position)), played

    def symmetries(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.symmetry_maps()

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        image = state.copy()
        ply = int(state[PLY])
        image[1:1 + ply] = self.symmetry_maps()[1][g][state[1:1 + ply]]
        return image

    def render(self, state: np.ndarray) -> str:
        position = self.position(state)
        code = self.result(position)
        after = "" if code == ONGOING else f"\nGame over: {STATUS_NAMES[code]}."
        return self.describe(position) + after

    def format_move(self, state: np.ndarray, action: int) -> str:
        return self.move_name(self.position(state), int(action))

    def parse_move(self, state: np.ndarray, text: str) -> int:
        position = self.position(state)
        if self.result(position) != ONGOING:
            raise GameError("the game is over: no move can follow.")
        return self.parse_move_name(position, text)

    def score(self, state: np.ndarray) -> int | None:
        return self.position_score(self.position(state))


def _key(moves: np.ndarray, ply: int) -> bytes:
    """The cache key of the position after the first `ply` of `moves`."""
    return np.int32(ply).tobytes() + moves[:ply].astype(np.int32).tobytes()
