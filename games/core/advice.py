"""Play-time advisors: what a game knows exactly about a position, offered to the agent on
top of its network's search. A game package declares its own in `ADVISORS` (name -> class,
games/<game>/advisors.py); `leaf_rollouts` serves every game. The agent (alphazero.agent)
builds those a config's `game.advisors` turns on; training's self-play and its gate use none,
so they train and measure the network alone.

An advisor is built from the game and one setting (a number or true; 0 or false is off) and
answers two questions:
  advise(state)       Advice for the side to move, or None where it knows nothing: the moves
                      the agent may play, the position's exact value, and whether those moves
                      are so sure that the search need not run (an exact endgame).
  search_settings()   settings it asks of the search (leaf rollouts: a share of each leaf's
                      value from a random playout).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Advice:
    allowed: np.ndarray | None = None  # bool[num_actions]: the moves the agent may play; None: any
    value: float | None = None         # the exact value for the side to move in [-1, 1], or None
    decided: bool = False              # the allowed moves are exact: no search is needed


class Advisor:
    name = ""
    setting = ""  # what its setting must be, for the error message of a bad one

    def __init__(self, game, setting):
        self.game, self.setting_value = game, setting

    @staticmethod
    def accepts(setting) -> bool:
        return isinstance(setting, bool)

    def advise(self, state: np.ndarray) -> Advice | None:
        return None

    def search_settings(self) -> dict:
        return {}


def is_whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


class LeafRollouts(Advisor):
    """Each leaf the search values is worth (1 - w) * the network's value + w * the outcome of
    one random playout from it (AlphaGo's mix), so the search also sees the short tactics
    random play runs into. Setting: w."""
    name = "leaf_rollouts"
    setting = "a number from 0 to 1 (the playout's share of a leaf's value)"

    @staticmethod
    def accepts(setting) -> bool:
        return isinstance(setting, (int, float)) and not isinstance(setting, bool) and 0 <= setting <= 1

    def search_settings(self) -> dict:
        return {"rollout_share": float(self.setting_value)}
