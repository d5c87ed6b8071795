"""Classic Connect-4's advisor: proven outcomes. Where games.connect4.solver proves every
column's outcome (win, draw or loss) within `nodes` nodes, the agent keeps to the columns of
the best one, so a won position stays won and a drawn one never loses; where it cannot, the
search alone plays. Only for boards the solver holds: one fixed board, no forbidden cell."""
from __future__ import annotations

import numpy as np

from games.connect4.solver import MAX_BITS, Connect4Solver
from games.core.advice import Advice, Advisor, is_whole
from games.core.base import GameError

MOST_NODES = 10_000_000  # seconds a move where the solver gives up


class ProvenOutcomes(Advisor):
    name = "proven_outcomes"
    setting = f"a whole number from 0 to {MOST_NODES} (solver nodes a move; more takes seconds)"

    def __init__(self, game, nodes: int):
        super().__init__(game, nodes)
        if not solves_exactly(game):
            raise GameError("game.advisors.proven_outcomes needs one fixed board of at most "
                            f"{MAX_BITS} cells counting a spare row, with no forbidden cell, "
                            f"not {game.params()}.")
        self.nodes = nodes
        self.solver = Connect4Solver(game.rows[0], game.cols[0])  # its table lasts the game

    @staticmethod
    def accepts(setting) -> bool:
        return is_whole(setting, 0, MOST_NODES)

    def advise(self, state: np.ndarray) -> Advice | None:
        board = self.game.board(state)
        outcomes = self.solver.move_scores_on_board(board, self.nodes, outcome_only=True)
        if outcomes is None:
            return None
        legal = self.game.legal_mask(state)
        padded = np.full(self.game.num_actions, -2)  # below any outcome: the illegal columns
        padded[:outcomes.size] = outcomes
        best = padded[legal].max()
        return Advice(legal & (padded == best), float(best))


def solves_exactly(game) -> bool:
    """Whether the solver holds `game`'s boards: one fixed board, no forbidden cell, few
    enough cells for its one-word bitboard."""
    return (game.forbidden is None and game.rows[0] == game.rows[1]
            and game.cols[0] == game.cols[1] and (game.rows[0] + 1) * game.cols[0] <= MAX_BITS)
