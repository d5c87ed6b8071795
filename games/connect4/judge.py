"""Classic Connect-4's judge: each column's exact Pons score (quick wins high) after a number
of plies, by games.connect4.solver; or, for early positions, the sign alone (win, draw or
loss), cheaper to prove; or Pons' six test sets of every stage, labelled in advance
(`stages`). Only on one fixed board without a forbidden cell."""
from __future__ import annotations

from games.connect4.solver import Connect4Solver
from games.core.connect4_stage_sets import COLS, PUBLISHED_STAGE_CURVES, ROWS, load_stage_sets
from games.core.base import GameError

NODE_LIMIT = 5_000_000  # exact scores, per position; deeper positions are skipped
OUTCOME_NODE_LIMIT = 200_000_000  # outcomes only (early): a few minutes at most
EARLY_PLIES = (8, 14)


class Connect4Judge:
    kinds = ("random", "early", "selfplay", "stages")
    stage_references = PUBLISHED_STAGE_CURVES  # set beside a run's curve on the stage sets

    def __init__(self, game, kind: str):
        if game.forbidden is not None or len(set(game.rows)) > 1 or len(set(game.cols)) > 1:
            raise GameError("the solver measure needs Othello, or Connect-4 on one fixed board "
                            "without a forbidden cell (e.g. game=connect4_classic).")
        if kind == "stages" and (game.rows[0], game.cols[0]) != (ROWS, COLS):
            raise GameError(f"the stage sets hold classic Connect-4 positions: {ROWS} rows, "
                            f"{COLS} columns, no forbidden cell.")
        self.solver = Connect4Solver(game.rows[0], game.cols[0])
        self.outcome_only = kind == "early"
        self.node_limit = OUTCOME_NODE_LIMIT if self.outcome_only else NODE_LIMIT

    def targets(self, kind: str, plies: tuple[int, int]) -> tuple[int, int]:
        """The range of plies a position is drawn after."""
        return EARLY_PLIES if kind == "early" else plies

    def reached(self, state, moves, target) -> bool:
        return len(moves) >= target

    def values(self, state, moves):
        return self.solver.move_scores(moves, self.node_limit, self.outcome_only)

    def stage_sets(self, game, per_set: int):
        """Pons' six test sets, labelled in advance (games.core.connect4_stage_sets)."""
        return load_stage_sets(game, per_set)
