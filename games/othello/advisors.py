"""Othello's advisor: the exact endgame. Strong Othello programs stop searching with their
evaluation near the end and solve the rest exactly; a network's search still misplays some
of those positions. From `empties` playable empty cells on, the agent plays the solver's move
to the largest final disc difference, and its value is the exact outcome."""
from __future__ import annotations

import numpy as np

from games.core.advice import Advice, Advisor, is_whole
from games.othello.solver import OthelloSolver

MOST_EMPTIES = 18  # a move from 18 empty cells takes seconds


class ExactEndgame(Advisor):
    name = "exact_endgame"
    setting = f"a whole number from 0 to {MOST_EMPTIES} (empty cells; more takes seconds a move)"

    def __init__(self, game, empties: int):
        super().__init__(game, empties)
        self.empties = empties
        self.solver = OthelloSolver(game)

    @staticmethod
    def accepts(setting) -> bool:
        return is_whole(setting, 0, MOST_EMPTIES)

    def advise(self, state: np.ndarray) -> Advice | None:
        if self.game.status(state) != 0 or self.game.playable_empties(state) > self.empties:
            return None
        action, margin = self.solver.best_move(state)
        allowed = np.zeros(self.game.num_actions, dtype=np.bool_)
        allowed[action] = True
        return Advice(allowed, float(np.sign(margin)), decided=True)
