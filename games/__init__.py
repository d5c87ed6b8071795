"""Game rules as Numba kernels behind one contract (see games.base).

Every module in this package that defines `GAME` (a games.base.Game subclass) is a game;
adding a game means adding one file.
"""
from __future__ import annotations

import importlib
import pkgutil

from games.base import DRAW, FIRST_WON, ONGOING, SECOND_WON, Game, GameError

__all__ = ["Game", "GameError", "ONGOING", "FIRST_WON", "SECOND_WON", "DRAW",
           "game_names", "make_game"]

_INFRASTRUCTURE = {"arrays", "base", "cli", "perft", "rng", "specialize", "stone_board",
                   "connect4_solver", "othello_solver"}


def _registry() -> dict:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _INFRASTRUCTURE:
            continue
        module = importlib.import_module(f"games.{info.name}")
        game_class = getattr(module, "GAME", None)
        if game_class is not None:
            found[game_class.name] = game_class
    return found


def game_names() -> list[str]:
    return sorted(_registry())


def make_game(name: str, **params) -> Game:
    """Build a game from its name and parameters; GameError names any bad one."""
    registry = _registry()
    if name not in registry:
        raise GameError(f"unknown game '{name}'; choose one of: {', '.join(sorted(registry))}.")
    return registry[name](**params)
