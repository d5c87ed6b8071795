"""The symmetries of the OpenSpiel games that declare one here (OpenSpiel itself declares
none): a game not named in SYMMETRIES keeps the identity alone. Each map is a permutation of
the observation's cells, of OpenSpiel's actions and, where the symmetry exchanges them, of
the observation's planes (games.core.base); tests/test_game_contract.py checks that they
commute with the rules on every game named here.
"""
from __future__ import annotations

import numpy as np

# Hex's observation planes are its cell states, one plane each, in OpenSpiel's order: the
# second player's (o: west to east) stones won, joined to the west, joined to the east, plain;
# empty; the first player's (x: north to south) plain, joined to the south, to the north, won.
HEX_HALF_TURN_PLANES = [0, 2, 1, 3, 4, 5, 7, 6, 8]


def half_turn(height: int, width: int) -> np.ndarray:
    """Cell i of a row-major board turned half a turn."""
    return np.arange(height * width)[::-1].copy()


def mirrored_columns(height: int, width: int) -> np.ndarray:
    """Cell i of a row-major board mirrored left to right."""
    return np.arange(height * width).reshape(height, width)[:, ::-1].reshape(-1).copy()


def mirrored_name(name: str, width: int) -> str:
    """A move string with each column letter mirrored ("a6b5*" -> "f6e5*" on six columns);
    the letters just off the board ("`" and "g" on six) mirror into each other."""
    first = ord("a")
    return "".join(chr(first + width - 1 - (ord(char) - first)) if "`" <= char <= "z" else char
                   for char in name)


def actions_by_name(game, start, mirror) -> np.ndarray:
    """The action permutation that a symmetry of the move strings makes: action a goes to the
    action whose string is mirror(a's). Breakthrough's strings do not depend on the position."""
    names = [start.action_to_string(0, action) for action in range(game.num_actions)]
    number = {name: action for action, name in enumerate(names)}
    return np.array([number[mirror(name)] for name in names])


def hex_symmetries(game, start):
    cells = half_turn(game.height, game.width)
    return [cells], [cells], [HEX_HALF_TURN_PLANES + [game.observation_planes]]


def connect_four_symmetries(game, start):
    return [mirrored_columns(game.height, game.width)], [np.arange(game.width)[::-1].copy()], None


def breakthrough_symmetries(game, start):
    cells = mirrored_columns(game.height, game.width)
    return [cells], [actions_by_name(game, start, lambda name: mirrored_name(name, game.width))], None


# OpenSpiel's short name -> (game, start) -> the symmetries besides the identity: (cell maps,
# action maps, plane maps or None where planes stay)
SYMMETRIES = {"hex": hex_symmetries, "connect_four": connect_four_symmetries,
              "breakthrough": breakthrough_symmetries}


def declared_symmetries(game, short_name: str, start
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(cells int64[G, H*W], actions int64[G, A], planes int64[G, P] or None), identity first."""
    cells = [np.arange(game.height * game.width)]
    actions = [np.arange(game.num_actions)]
    if short_name not in SYMMETRIES:
        return np.array(cells), np.array(actions), None
    more_cells, more_actions, more_planes = SYMMETRIES[short_name](game, start)
    planes = None if more_planes is None else np.array([list(range(game.planes)), *more_planes])
    return np.array(cells + more_cells), np.array(actions + more_actions), planes
