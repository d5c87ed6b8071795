"""Rules that narrow the agent's move after its search, where something exact proves some
moves better than the rest.

A rule's `allowed(state)` returns (mask, value): the moves the agent may play (None: any,
the search's own choice stands) and the exact value of the position for the side to move
(None: not known, the search's value stands). The agent plays the most visited allowed move
(`ruled_action`), so its search still picks among moves the rule cannot tell apart.

  ForcedCells      Connect6 (`game.forced_moves`): a six this turn, a block of the opponent's
                   six next turn, a six next turn that cannot be blocked, a win by double
                   threats a few turns ahead (games/connect6_threats.py).
  ProvenOutcomes   classic Connect-4 (`game.solver_nodes`): where games.connect4_solver proves
                   every column's outcome (win, draw, loss) within a node budget, the columns
                   with the best one. A won position then stays won and a drawn one never
                   loses; where the budget runs out, early in the game, the search alone plays.

Training's self-play and its gate do not use them: they train and measure the network.
"""
from __future__ import annotations

import numpy as np

from games.connect4_solver import Connect4Solver


class ForcedCells:
    name = "forced_cells"

    def __init__(self, game):
        self.game = game
        game.compile_forced_cells()

    def allowed(self, state) -> tuple[np.ndarray | None, float | None]:
        return self.game.forced_cells(state), None


class ProvenOutcomes:
    name = "proven_outcomes"

    def __init__(self, game, node_limit: int):
        self.game = game
        self.node_limit = node_limit
        # The solver keeps its table between calls: one game's moves reuse what the last proved.
        self.solver = Connect4Solver(game.rows[0], game.cols[0])

    def allowed(self, state) -> tuple[np.ndarray | None, float | None]:
        outcomes = self.solver.move_scores_on_board(self.game.board(state), self.node_limit,
                                                    outcome_only=True)
        if outcomes is None:
            return None, None
        legal = self.game.legal_mask(state)
        best = outcomes[legal].max()
        return legal & (outcomes == best), float(best)


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
    """The rule `game_cfg` asks for (validated by alphazero.config.validate_play_rules), or
    None."""
    if game_cfg.get("forced_moves", False):
        return ForcedCells(game)
    nodes = game_cfg.get("solver_nodes", 0)
    return ProvenOutcomes(game, nodes) if nodes else None
