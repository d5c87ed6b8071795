"""Rules that narrow the agent's move after its search, where something exact proves some
moves better than the rest.

A rule's `allowed(state)` returns (mask, value): the moves the agent may play (None: any,
the search's own choice stands) and the exact value of the position for the side to move
(None: not known, the search's value stands). The agent plays the most visited allowed move
(`ruled_action`), so its search still picks among moves the rule cannot tell apart.

  ForcedCells      Connect6 (`game.forced_moves`): a six this turn, a block of the opponent's
                   six next turn, a six next turn that cannot be blocked, a win by double
                   threats a few turns ahead (games/connect6/threats.py).
  ProvenOutcomes   Connect-4 and Othello (`game.solver_nodes`): a move proved to win where
                   there is one; else every move but those proved to lose, or, where every
                   move's outcome is proved, those with the best. A won position then stays
                   won and a drawn one never loses. Classic Connect-4 boards are solved
                   exactly by games.connect4.solver: every column or none within the budget,
                   or with `game.solver_per_column` (experimental, docs/experiments.md)
                   column by column, each keeping its outcome where its proof fits. Course
                   boards, too large for it, by games.connect4.prover, which proves forced
                   wins and losses column by column; Othello positions by
                   games.othello.solver's move_outcomes, each move within the budget (so
                   wipe-outs a few moves ahead are refused long before the exact endgame).
                   Where nothing is proved, the search alone plays.

Training's self-play and its gate do not use them: they train and measure the network.
"""
from __future__ import annotations

import numpy as np

from games.connect4.prover import ILLEGAL, LOSS, UNKNOWN, WIN, Connect4Prover
from games.connect4.solver import ILLEGAL_MOVE_SCORE, MAX_BITS, UNPROVED, Connect4Solver
from games.othello.rules import Othello
from games.othello.solver import OthelloSolver


class ForcedCells:
    name = "forced_cells"

    def __init__(self, game):
        self.game = game
        game.compile_forced_cells()

    def allowed(self, state) -> tuple[np.ndarray | None, float | None]:
        return self.game.forced_cells(state), None


class ProvenOutcomes:
    name = "proven_outcomes"

    def __init__(self, game, node_limit: int, per_column: bool = False):
        self.game = game
        self.node_limit = node_limit
        self.per_column = per_column  # classic boards: keep each column's proof that fits
        # Each keeps its table between calls: one game's moves reuse what the last proved.
        self.solver = self.prover = self.othello = None
        if isinstance(game, Othello):
            self.othello = OthelloSolver(game)
        elif solves_exactly(game):
            self.solver = Connect4Solver(game.rows[0], game.cols[0])
        else:
            self.prover = Connect4Prover()

    def allowed(self, state) -> tuple[np.ndarray | None, float | None]:
        outcomes = self.outcomes(state)
        legal = self.game.legal_mask(state)
        proved = legal & (outcomes != UNKNOWN)
        if np.any(proved & (outcomes == WIN)):
            return legal & (outcomes == WIN), float(WIN)
        if proved.sum() == legal.sum():
            best = outcomes[legal].max()
            return legal & (outcomes == best), float(best)
        allowed = legal & (outcomes != LOSS)
        return (None if allowed.sum() == legal.sum() else allowed), None

    def outcomes(self, state) -> np.ndarray:
        """Each action's proved outcome for the side to move (WIN, DRAW, LOSS), UNKNOWN, or
        for columns off this state's board (a smaller board than the widest) ILLEGAL; for
        Othello, illegal actions hold any other number (callers mask them with legal_mask)."""
        if self.othello is not None:
            return self.othello.move_outcomes(state, self.node_limit)
        board = self.game.board(state)
        if self.prover is not None:
            outcomes = self.prover.column_outcomes(board, self.game.forbidden_cell(state),
                                                   self.node_limit)
        elif self.per_column:
            outcomes = self.solver.column_outcomes_on_board(board, self.node_limit)
            outcomes[outcomes == UNPROVED] = UNKNOWN
            outcomes[outcomes == ILLEGAL_MOVE_SCORE] = ILLEGAL
        else:
            outcomes = self.solver.move_scores_on_board(board, self.node_limit, outcome_only=True)
            if outcomes is None:
                outcomes = np.full(board.shape[1], UNKNOWN)
        padded = np.full(self.game.num_actions, ILLEGAL)
        padded[:outcomes.size] = outcomes
        return padded


def solves_exactly(game) -> bool:
    """Whether games.connect4.solver solves `game`'s boards: one fixed board, no forbidden
    cell, few enough cells for its one-word bitboard."""
    return (game.forbidden is None and game.rows[0] == game.rows[1]
            and game.cols[0] == game.cols[1] and (game.rows[0] + 1) * game.cols[0] <= MAX_BITS)


def ruled_action(allowed: np.ndarray | None, visits, priors, chosen: int) -> int:
    """`chosen` where the rule allows it; else the most visited allowed move, the network's
    favourite among them where the search visited none."""
    if allowed is None or allowed[chosen]:
        return chosen
    return int(np.argmax(np.where(allowed, visits + 1e-3 * priors, -1.0)))


def ruled_move(rule, state, visits, priors, chosen: int, value: float) -> tuple[int, float]:
    """The move and value the agent gives after a search that chose `chosen` with root value
    `value`: the rule's allowed move (`ruled_action`) and its exact value where it has one."""
    allowed, exact = rule.allowed(state)
    return ruled_action(allowed, visits, priors, chosen), value if exact is None else exact


def move_rule(game, game_cfg):
    """The rule `game_cfg` asks for (validated by alphazero.config.settings.validate_play_rules), or
    None."""
    if game_cfg.get("forced_moves", False):
        return ForcedCells(game)
    nodes = game_cfg.get("solver_nodes", 0)
    return (ProvenOutcomes(game, nodes, game_cfg.get("solver_per_column", False)) if nodes
            else None)
