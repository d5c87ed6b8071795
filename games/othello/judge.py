"""Othello's judge: each action's exact final disc difference (games.othello.solver) once a
number of playable cells are empty, in either rule set."""
from __future__ import annotations

from games.othello.solver import OthelloSolver

ENDGAME_EMPTIES = (10, 14)  # playable empty cells (the course rules' corners not counted)


class OthelloJudge:
    kinds = ("random", "selfplay")
    outcome_only = False

    def __init__(self, game, kind: str):
        self.solver = OthelloSolver(game)

    def targets(self, kind: str, plies: tuple[int, int]) -> tuple[int, int]:
        """The range of playable empty cells a position is drawn at."""
        return ENDGAME_EMPTIES

    def reached(self, state, moves, target) -> bool:
        return self.solver.game.playable_empties(state) <= target

    def values(self, state, moves):
        return self.solver.move_values(state)
