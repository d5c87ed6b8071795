"""The agent behind a game session, searched on request.

A network player (alphazero.agent.players.checkpoint_player: the checkpoint's weights and the
discount it was trained with) is searched with a fresh BatchedSearch of one tree per
request, so the page can read the root's visit shares, its value and the principal
variation; where the player solves the endgame exactly (alphazero.agent.endgame), the thought is
the solver's move and outcome, and where the player's move rule (alphazero.agent.move_rules)
rules out the search's move, the allowed move it plays is the move and the whole line, and
an exact value the rule proves is the value. Without a
network the agent is pure MCTS (random rollouts; the yardstick of `evaluate`), whose line
is its one chosen move. Each request says how many simulations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.search.puct import BatchedSearch
from alphazero.agent.move_rules import ruled_move
from alphazero.agent.players import AlphaZeroPlayer
from alphazero.search.pure_mcts import PureMCTS


@dataclass
class Thought:
    action: int            # the move the agent would play (the most visited)
    value: float           # the root's value for the side to move, in [-1, 1]
    visits: np.ndarray     # [num_actions] visit counts at the root
    line: list[int]        # the principal variation, starting with `action`


class Agent:
    """`player` None: pure MCTS. `label` names the agent in the page."""

    def __init__(self, game, player: AlphaZeroPlayer | None, label: str, seed: int = 0):
        self.game, self.player, self.label, self.seed = game, player, label, seed

    def think(self, state: np.ndarray, simulations: int) -> Thought:
        if self.player is None:
            return self._pure_thought(state, simulations)
        return self._network_thought(state, simulations)

    def _network_thought(self, state, simulations: int) -> Thought:
        endgame = self.player.endgame
        if endgame is not None and endgame.covers(state[None])[0]:
            return self._exact_thought(state, endgame)
        # The player's game is the one its network was trained on: for a board inside a
        # trained range (course Connect-4) the same states with the network's input size.
        search = BatchedSearch(self.player.game, 1, simulations, self.player.search_config,
                               seed=self.seed)
        search.set_root(0, state)
        search.run(self.player.inference)
        line = search.principal_variation(0)  # starts with the most visited move
        visits = search.visit_counts()[0][:self.game.num_actions]
        value = float(search.root_values()[0])
        if self.player.move_rule is not None:
            priors = search.root_priors()[0][:self.game.num_actions]
            action, value = ruled_move(self.player.move_rule, state, visits, priors, line[0], value)
            line = line if action == line[0] else [action]
        return Thought(line[0], value, visits, line)

    def _exact_thought(self, state, endgame) -> Thought:
        """The solver's move: all of the root's weight on it, its exact outcome as the value."""
        action, value = endgame.best_move(state)
        visits = np.zeros(self.game.num_actions, dtype=np.float32)
        visits[action] = 1.0
        return Thought(action, value, visits, [action])

    def _pure_thought(self, state, simulations: int) -> Thought:
        mcts = PureMCTS(self.game, simulations, seed=self.seed)
        visits, values = mcts.search(state[None])
        action = int(mcts.best_actions_from(visits)[0])
        return Thought(action, float(2.0 * values[0] - 1.0), visits[0].astype(np.float32), [action])
