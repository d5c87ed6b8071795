"""Game rules as Numba kernels behind one contract (games.core.base).

Each game is a package `games/<name>/` whose `__init__` defines `GAME`, its games.core.base.Game
subclass, `ADVISORS`, the play-time help it offers the agent (games.core.advice), and where it
has an exact solver `JUDGE`, which scores a player's moves (alphazero.evaluate.judges), and
where it brings players of its own `OPPONENTS` (name -> class(game, strength, seed), for
`evaluate opponent=NAME:STRENGTH`), beside
what belongs to that game alone (a solver, a threat search). `GAMES` lists them: adding a game
means adding its package and its name here.
"""
from __future__ import annotations

import importlib

from games.core.advice import Advisor, LeafRollouts
from games.core.base import DRAW, FIRST_WON, ONGOING, SECOND_WON, Game, GameError

__all__ = ["Game", "GameError", "ONGOING", "FIRST_WON", "SECOND_WON", "DRAW", "GAMES",
           "game_advisors", "game_class", "game_judge", "game_names", "game_opponents",
           "make_game"]

GAMES = ("connect4", "connect6", "gomoku", "openspiel", "othello", "qubic")  # the packages of games/ that are games


def game_class(name: str) -> type[Game]:
    """The Game subclass of a registered game; GameError names the choices otherwise."""
    if name not in GAMES:
        raise GameError(f"unknown game '{name}'; choose one of: {', '.join(GAMES)}.")
    return importlib.import_module(f"games.{name}").GAME


def game_names() -> list[str]:
    return list(GAMES)


def make_game(name: str, **params) -> Game:
    """Build a game from its name and parameters; GameError names any bad one."""
    return game_class(name)(**params)


def game_advisors(name: str) -> dict[str, type[Advisor]]:
    """The advisors a game offers its agent, by the name `game.advisors` gives them."""
    game_class(name)  # a clear error for an unknown game
    return {LeafRollouts.name: LeafRollouts, **importlib.import_module(f"games.{name}").ADVISORS}


def game_judge(name: str):
    """The exact judge of a game's moves, or None where it has none."""
    game_class(name)
    return getattr(importlib.import_module(f"games.{name}"), "JUDGE", None)


def game_opponents(name: str) -> dict:
    """The players a game brings of its own (OpenSpiel's MCTSBot), by name."""
    game_class(name)
    return getattr(importlib.import_module(f"games.{name}"), "OPPONENTS", {})
