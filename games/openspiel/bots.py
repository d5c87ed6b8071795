"""OpenSpiel's own MCTSBot as an opponent for matches (`evaluate opponent=mcts:N`): UCT with
random rollouts and its solver on, a judge the network never trained against. It searches
OpenSpiel's state of each position afresh, N simulations a move, in OpenSpiel's C++
(`pyspiel.MCTSBot`), the same algorithm as its Python twin at 8 times its pace
(docs/judges.md)."""
from __future__ import annotations

import numpy as np

UCT_C = 2.0  # OpenSpiel's example default for MCTSBot
MEMORY_MB = 1000  # the tree's size limit: 10,000 simulations stay far below it


class OpenSpielMCTS:
    def __init__(self, game, simulations: int, seed: int = 0):
        self.game, self.simulations, self.seed = game, simulations, seed
        self.last_values = np.zeros(0, dtype=np.float32)
        self.reset()

    def reset(self) -> None:
        import pyspiel
        evaluator = pyspiel.RandomRolloutEvaluator(1, self.seed)
        self.bot = pyspiel.MCTSBot(self.game.spiel, evaluator, UCT_C, self.simulations, MEMORY_MB,
                                   True, self.seed, False)

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        actions = [self.bot.step(self.game.position(state)) for state in np.atleast_2d(states)]
        self.last_values = np.zeros(len(actions), dtype=np.float32)  # the bot tells no value
        return np.asarray(actions, dtype=np.int64)
