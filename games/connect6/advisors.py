"""Connect6's advisor: the cells a turn must take (games.connect6.threats): a six this turn,
a block of the opponent's six next turn, a six next turn that cannot be blocked, a win by
double threats up to four turns ahead. The agent plays the most visited of them."""
from __future__ import annotations

import numpy as np

from games.core.advice import Advice, Advisor


class ForcedCells(Advisor):
    name = "forced_cells"
    setting = "true or false"

    def __init__(self, game, enabled: bool):
        super().__init__(game, enabled)
        game.compile_forced_cells()  # now, not on the agent's first move

    def advise(self, state: np.ndarray) -> Advice | None:
        allowed = self.game.forced_cells(state)
        return None if allowed is None else Advice(allowed)
