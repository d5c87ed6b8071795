"""The contract every game implements, so search and training are written once.

A game is a Python object (a subclass of `Game`) that holds its parameters and exposes:

* plain attributes: `name`, `num_actions` (policy vector length), `planes`, `height`, `width`
  (the encoded input is float32 [planes, height, width]), `state_size`, `state_dtype`;
* `kernels`: a dict of Numba `@njit(cache=True)` functions over one flat state array,
  with these exact names and signatures (generic code calls them through
  `games.core.specialize`, never by game name):

    legal_actions(state, mask) -> int     fill bool mask[num_actions]; return the count
    play(state, action) -> None           apply a legal action in place
    status(state) -> int                  ONGOING, FIRST_WON, SECOND_WON or DRAW
    to_move(state) -> int                 0 if the first player acts next, else 1
    ply(state) -> int                     actions played since the start (passes count)
    encode(state, out) -> None            write float32 out[planes, height, width],
                                          from the view of the side to move: plane 0
                                          its pieces, plane 1 the opponent's (self-play
                                          reads the final owner of each cell from them)
    random_playout(state, rng) -> int     play uniformly random legal actions to the end,
                                          in place; return the final status. `rng` is a
                                          uint64[1] xorshift state (games.core.rng)

* `num_symmetries` (G) and `symmetries(state) -> (cells int64[G, height*width],
  actions int64[G, num_actions])`: the symmetry group of this position's board as index
  permutations, identity first. Symmetry g sends flat encoded cell i to cells[g, i] and action
  a to actions[g, a]. (Per state, because a Connect-4 board drawn per game mirrors within
  its own width inside the padded planes; G is the same for every state of a game.)
* `transform_state(state, g)`: the state seen through symmetry g, so that
  play(g(s), g(a)) == g(play(s, a)) and encode(g(s)) is encode(s) with cells permuted;
* text: `render(state)`, `parse_move(state, text)` and `format_move(state, action)`;
  `board_params(state)`, the parameters that start this state's board (one drawn per game).

The state is data (docs/design.md, principle 3): a 1-D array that can be copied, hashed, pickled.
"""
from __future__ import annotations

import numpy as np

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


class Game:
    name: str = ""
    num_actions: int
    planes: int
    height: int
    width: int
    state_size: int
    state_dtype: type = np.int16
    kernels: dict
    num_symmetries: int
    # Dirichlet alpha suited to the typical number of legal moves (AlphaZero: ~10 / moves).
    dirichlet_alpha: float = 0.3
    # Where only a line of exactly this many wins (Gomoku's exact_five), so that the web board
    # marks that line and not a longer one beside it; None: a won game's longest line won it.
    exact_winning_line: int | None = None

    def params(self) -> dict:
        """Canonical parameters: enough to rebuild this game with `make_game(name, **params)`."""
        raise NotImplementedError

    def new_state(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """The start position. Games whose board is drawn per game use `rng` to draw it."""
        raise NotImplementedError

    def presentation(self) -> Presentation:
        """The game's words and look for people (games.core.presentation); by default its
        name, black and white stones and no rules line."""
        return Presentation(name=self.name, rules="")

    def board_params(self, state: np.ndarray) -> dict:
        """The parameters of the board `state` is on: `make_game(name, **board_params)`
        starts that board (a game's kept record). Games whose board is drawn per game say
        which one was drawn."""
        return self.params()

    def symmetries(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def transform_state(self, state: np.ndarray, g: int) -> np.ndarray:
        raise NotImplementedError

    def render(self, state: np.ndarray) -> str:
        raise NotImplementedError

    def parse_move(self, state: np.ndarray, text: str) -> int:
        """The action for `text` in this position; GameError if malformed or illegal."""
        raise NotImplementedError

    def format_move(self, state: np.ndarray, action: int) -> str:
        raise NotImplementedError

    def played_by(self, trained: dict) -> bool:
        """Whether a network trained on this game with parameters `trained` plays this game's
        boards. Its search then runs on `make_game(name, **trained)`, so a game that says
        yes for other parameters must give both the same state layout (Connect-4: a network
        trained on boards drawn from ranges plays any one board inside them). By default,
        only the same parameters."""
        return self.params() == trained

    # Conveniences built on the kernels, for Python callers (tests, CLI, play). Not hot paths.
    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.bool_)
        self.kernels["legal_actions"](state, mask)
        return mask

    def legal_list(self, state: np.ndarray) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask(state))]

    def status(self, state: np.ndarray) -> int:
        return int(self.kernels["status"](state))

    def to_move(self, state: np.ndarray) -> int:
        return int(self.kernels["to_move"](state))

    def play(self, state: np.ndarray, action: int) -> None:
        self.kernels["play"](state, action)

    def encode(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros((self.planes, self.height, self.width), dtype=np.float32)
        self.kernels["encode"](state, out)
        return out

    def play_moves(self, state: np.ndarray, moves) -> np.ndarray:
        """Apply moves given in notation (strings or numbers), checking each; returns state."""
        for i, move in enumerate(moves):
            if self.status(state) != ONGOING:
                raise GameError(f"move {i + 1} ({move}) comes after the game has ended.")
            self.play(state, self.parse_move(state, str(move)))
        return state
