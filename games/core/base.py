"""The contract every game implements, so search and training are written once.

A game is a Python object (a subclass of `Game`) that holds its parameters and exposes:

* plain attributes: `name`, `num_actions` (policy vector length), `planes`, `height`, `width`
  (the encoded input is float32 [planes, height, width]), `state_size`, `state_dtype`;
* the rules, one position at a time: `legal_actions(state, mask)`, `play(state, action)`,
  `status(state)`, `to_move(state)`, `ply(state)`, `encode_into(state, out)` and
  `random_playout(state, rng)` (abstract methods below). Two kinds of game implement them:
  - `KernelGame`: `kernels` is a `Kernels` of Numba `@njit(cache=True)` functions over one
    flat state array, which generic code compiles into its own loops through
    `games.core.specialize` (the fastest kind; docs/adding_a_game.md);
  - `games.core.python_game.PythonGame`: rules written as ordinary Python methods
    (`kernels` is None); the search then takes its game steps in Python.
* the input planes (`encode_into`): float32 [planes, height, width], every cell written, from
  the view of the side to move (a network sees no other sign of whose turn it is), and each
  value a whole number from 0 to 255, in practice 0 or 1: self-play and the replay buffer
  store planes as uint8 (`fits_uint8`), and tests/test_game_contract.py checks it;
* `num_symmetries` (G) and `symmetries(state) -> (cells int64[G, height*width],
  actions int64[G, num_actions])`: the symmetry group of this position's board as index
  permutations, identity first. Symmetry g sends flat encoded cell i to cells[g, i] and action
  a to actions[g, a]. (Per state, because a Connect-4 board drawn per game mirrors within
  its own width inside the padded planes; G is the same for every state of a game.) Where a
  symmetry also exchanges input planes (Hex turned half a turn: a stone joined to the north
  edge becomes one joined to the south), `plane_symmetries` int64[G, planes] declares it:
  symmetry g sends plane p to plane_symmetries[g, p]; None (the default): planes stay;
* `transform_state(state, g)`: the state seen through symmetry g, so that
  play(g(s), g(a)) == g(play(s, a)) and encode(g(s)) is encode(s) with cells permuted;
* text: `render(state)`, `parse_move(state, text)` and `format_move(state, action)`;
  `board_params(state)`, the parameters that start this state's board (one drawn per game);
* for a page: `drawn_board(state)`, the board as rows of cell marks with its coordinates,
  and `action_cells(state, actions)`, the cells of that board each action touches (the one
  it fills by default; a game of moving pieces says (from, to));
* optional features, declared rather than probed: `pass_action` (the action that passes,
  or None), `score(state)` (None where the game counts no score), `dirichlet_alpha` (the
  root noise's default), `typed_params` (parameters a form asks for as text).

The state is data (docs/design.md, principle 3): a 1-D array that can be copied, hashed, pickled.
"""
from __future__ import annotations

import abc
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from games.core.board_text import Coordinates, move_change, read_board
from games.core.presentation import Presentation

ONGOING, FIRST_WON, SECOND_WON, DRAW = 0, 1, 2, 3
STATUS_NAMES = {ONGOING: "ongoing", FIRST_WON: "first player won",
                SECOND_WON: "second player won", DRAW: "draw"}


class GameError(ValueError):
    """A bad game parameter or move. Its message is one plain sentence for the user."""


def check_param_names(game: str, params: dict, allowed) -> None:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise GameError(f"unknown parameter '{unknown[0]}' for {game}; "
                        f"it takes: {', '.join(allowed)}.")


def int_param(game: str, key: str, value, low: int, high: int) -> int:
    """`value` as an int in [low, high], or a GameError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).lstrip("-").isdigit():
        raise GameError(f"{game} parameter {key} must be a whole number, not '{value}'.")
    number = int(value)
    if not low <= number <= high:
        raise GameError(f"{game} parameter {key}={number} is out of range; it must be from {low} to {high}.")
    return number


def bool_param(game: str, key: str, value) -> bool:
    """`value` as a bool (true/false, as YAML and Hydra give it), or a GameError naming the
    parameter."""
    if not isinstance(value, bool):
        raise GameError(f"{game} parameter {key} must be true or false, not '{value}'.")
    return value


class Kernels(NamedTuple):
    """A kernel game's rules: Numba `@njit(cache=True)` functions over one flat state array
    (games.core.specialize compiles generic code against them, never by game name)."""
    legal_actions: Callable  # (state, mask) -> int: fill bool mask[num_actions]; the count
    play: Callable  # (state, action) -> None: apply a legal action in place
    status: Callable  # (state) -> int: ONGOING, FIRST_WON, SECOND_WON or DRAW
    to_move: Callable  # (state) -> int: 0 if the first player acts next, else 1
    ply: Callable  # (state) -> int: actions played since the start (passes count)
    encode: Callable  # (state, out) -> None: write float32 out[planes, height, width]
    random_playout: Callable  # (state, rng) -> int: random legal actions to the end, in place;
    # the final status (`rng` a uint64[1] xorshift state, games.core.rng)


def fits_uint8(planes: np.ndarray) -> bool:
    """Whether encoded planes keep the rule for input planes: whole numbers from 0 to 255
    (self-play and the replay buffer store them as uint8)."""
    return bool(np.array_equal(planes, planes.astype(np.uint8)))


class Game(abc.ABC):
    name: str = ""
    num_actions: int
    planes: int
    height: int
    width: int
    state_size: int
    state_dtype: type = np.int16
    # The rules as Numba kernels, or None where they run in Python (games.core.python_game):
    # the search then takes its game steps in Python.
    kernels: Kernels | None = None
    num_symmetries: int
    plane_symmetries: np.ndarray | None = None  # int64[G, planes] where symmetries move planes
    # The default Dirichlet alpha of the root noise, suited to the typical number of legal
    # moves (AlphaZero: ~10 / moves); alphazero.search.puct.root_noise_alpha reads it.
    dirichlet_alpha: float = 0.3
    # The action that passes, in a game where a side without a move passes; None: no passes.
    pass_action: int | None = None
    # Where only a line of exactly this many wins (Gomoku's exact_five), so that the web board
    # marks that line and not a longer one beside it; None: a won game's longest line won it.
    exact_winning_line: int | None = None
    # Parameters whose values are too many to list, which a person types as text in the web
    # board's form (OpenSpiel's game, "breakthrough(rows=6,columns=6)"); every other one is
    # offered as a choice of the values the game accepts.
    typed_params: tuple[str, ...] = ()

    @staticmethod
    def unavailable() -> str | None:
        """Why this game cannot be built on this machine (an optional package it needs is
        missing), in one sentence; None (the default) where it can."""
        return None

    @abc.abstractmethod
    def params(self) -> dict:
        """Canonical parameters: enough to rebuild this game with `make_game(name, **params)`."""

    @abc.abstractmethod
    def new_state(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """The start position. Games whose board is drawn per game use `rng` to draw it."""

    def run_suffix(self) -> str:
        """What tells this game's training runs apart from other runs named by the same
        `game=` choice: nothing by default (a conf/game/ file is one game); OpenSpiel's game
        and parameters, which one `game=openspiel:...` choice covers."""
        return ""

    def drawn_board(self, state: np.ndarray) -> tuple[list[str], Coordinates] | None:
        """The board as a page draws it: its rows of cell marks (`.` empty, `X` the first
        player's piece, `O` the second's, `#` a cell never played) and the coordinates around
        them; None where the game draws none. By default read from `render(state)`, whose
        board must then follow games.core.board_text's grammar; a game may declare its own."""
        return read_board(self.render(state), self.width)

    def action_cells(self, state: np.ndarray, actions) -> dict[int, tuple[int, ...]]:
        """The cells of the drawn board (drawn_board's rows, row-major) that each of `actions`
        (legal in `state`) touches: (cell,) for a move that places a piece there, (from, to)
        for one that moves a piece, () for one that touches none (a pass). By default the one
        empty cell each fills, found by playing it on a copy (so a game of placing pieces needs
        nothing more); a game of moving pieces declares its own. All at once: the board before
        them is read once (a 19x19 board's 361 moves)."""
        drawn = self.drawn_board(state)
        if drawn is None:
            return {action: () for action in actions}
        before, cells = "".join(drawn[0]), {}
        for action in actions:
            after_state = state.copy()
            self.play(after_state, action)
            after = self.drawn_board(after_state)
            filled = move_change(before, "".join(after[0]))[0] if after else None
            cells[action] = () if filled is None else (filled,)
        return cells

    def presentation(self) -> Presentation:
        """The game's words and look for people (games.core.presentation); by default its
        name, black and white stones and no rules line."""
        return Presentation(name=self.name, rules="")

    def board_params(self, state: np.ndarray) -> dict:
        """The parameters of the board `state` is on: `make_game(name, **board_params)`
        starts that board (a game's kept record). Games whose board is drawn per game say
        which one was drawn."""
        return self.params()

    @abc.abstractmethod
    def symmetries(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cells int64[G, height*width], actions int64[G, num_actions]), identity first."""

    @abc.abstractmethod
    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        """The state seen through symmetry g."""

    @abc.abstractmethod
    def render(self, state: np.ndarray) -> str:
        """The position as text for a terminal."""

    @abc.abstractmethod
    def parse_move(self, state: np.ndarray, text: str) -> int:
        """The action for `text` in this position; GameError if malformed or illegal."""

    @abc.abstractmethod
    def format_move(self, state: np.ndarray, action: int) -> str:
        """The action's text in this position (parse_move reads it back)."""

    @property
    def max_plies(self) -> int:
        """The most actions a game can last, passes included. By default, a bound that holds
        where every action but a pass fills a cell and a pass comes at most once between two;
        a game whose moves do not fill cells says its own."""
        return 2 * self.height * self.width

    def score(self, state: np.ndarray) -> int | None:
        """The first player's score minus the second's where the game counts one (Othello's
        discs), at any point of a game; None (the default) where it counts none."""
        return None

    def played_by(self, trained: dict) -> bool:
        """Whether a network trained on this game with parameters `trained` plays this game's
        boards. Its search then runs on `make_game(name, **trained)`, so a game that says
        yes for other parameters must give both the same state layout (Connect-4: a network
        trained on boards drawn from ranges plays any one board inside them). By default,
        only the same parameters."""
        return self.params() == trained

    # The rules, one position at a time: what Python callers (self-play's bookkeeping, the
    # tools, tests) use. A kernel game answers through its kernels (KernelGame).
    @abc.abstractmethod
    def legal_actions(self, state: np.ndarray, mask: np.ndarray) -> int:
        """Fill bool mask[num_actions] with the legal actions; return their count."""

    @abc.abstractmethod
    def play(self, state: np.ndarray, action: int) -> None:
        """Apply a legal action in place."""

    @abc.abstractmethod
    def status(self, state: np.ndarray) -> int:
        """ONGOING, FIRST_WON, SECOND_WON or DRAW."""

    @abc.abstractmethod
    def to_move(self, state: np.ndarray) -> int:
        """0 if the first player acts next, else 1."""

    @abc.abstractmethod
    def ply(self, state: np.ndarray) -> int:
        """Actions played since the start (passes count)."""

    @abc.abstractmethod
    def encode_into(self, state: np.ndarray, out: np.ndarray) -> None:
        """Write every cell of float32 out[planes, height, width] (the rule for planes above)."""

    @abc.abstractmethod
    def random_playout(self, state: np.ndarray, rng: np.ndarray) -> int:
        """Random legal actions to the end, in place; the final status (`rng`: games.core.rng)."""

    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.bool_)
        self.legal_actions(state, mask)
        return mask

    def legal_list(self, state: np.ndarray) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask(state))]

    def encode(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros((self.planes, self.height, self.width), dtype=np.float32)
        self.encode_into(state, out)
        return out

    def play_moves(self, state: np.ndarray, moves) -> np.ndarray:
        """Apply moves given in notation (strings or numbers), checking each; returns state."""
        for i, move in enumerate(moves):
            if self.status(state) != ONGOING:
                raise GameError(f"move {i + 1} ({move}) comes after the game has ended.")
            self.play(state, self.parse_move(state, str(move)))
        return state


class KernelGame(Game):
    """A game whose rules are Numba kernels (`kernels`): the fastest kind, which the search
    compiles into its own loops. The queries below are for Python callers, not hot paths."""
    kernels: Kernels

    def legal_actions(self, state: np.ndarray, mask: np.ndarray) -> int:
        return int(self.kernels.legal_actions(state, mask))

    def play(self, state: np.ndarray, action: int) -> None:
        self.kernels.play(state, action)

    def status(self, state: np.ndarray) -> int:
        return int(self.kernels.status(state))

    def to_move(self, state: np.ndarray) -> int:
        return int(self.kernels.to_move(state))

    def ply(self, state: np.ndarray) -> int:
        return int(self.kernels.ply(state))

    def encode_into(self, state: np.ndarray, out: np.ndarray) -> None:
        self.kernels.encode(state, out)

    def random_playout(self, state: np.ndarray, rng: np.ndarray) -> int:
        return int(self.kernels.random_playout(state, rng))
