"""Exact endgame moves for the agent, where the game has an exact solver fast enough to move.

Strong Othello programs stop searching with their evaluation near the end of the game and
solve it exactly; a network's search, like any heuristic search, still misplays some of those
positions (docs/results.md, section "Judges"). With `game.endgame_solver_empties: N` the
agent (play, the engine, evaluate, the browser board) plays games.othello.solver's best move,
the largest final disc difference, once at most N playable cells are empty, and its value for
the side to move there is the exact outcome: 1 a win, 0 a draw, -1 a loss. Training's
self-play and its gate do not use it: they train and measure the network.
"""
from __future__ import annotations

import numpy as np

from games.othello.solver import OthelloSolver


class ExactEndgame:
    """Which positions the solver plays, and its move there."""

    def __init__(self, game, empties: int):
        self.game = game
        self.empties = empties
        self.solver = OthelloSolver(game)

    def covers(self, states: np.ndarray) -> np.ndarray:
        """bool[B]: the unfinished positions with at most `empties` playable empty cells."""
        return np.array([self.game.status(s) == 0 and self.game.playable_empties(s) <= self.empties
                         for s in states], dtype=np.bool_)

    def best_move(self, state: np.ndarray) -> tuple[int, float]:
        """(a move to the largest final disc difference, its outcome for the mover)."""
        action, margin = self.solver.best_move(state)
        return action, float(np.sign(margin))


def exact_endgame(game, game_cfg) -> ExactEndgame | None:
    """The solver `game_cfg.endgame_solver_empties` asks for (validated by
    alphazero.config.settings.validate), or None where it is 0 or unset."""
    empties = game_cfg.get("endgame_solver_empties", 0)
    return ExactEndgame(game, empties) if empties else None
