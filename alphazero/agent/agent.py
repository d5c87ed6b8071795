"""The agents: a network's PUCT search with its game's advisors, and pure MCTS.

Both answer the same calls (the `Agent` protocol):
  best_actions(states)        one move for each of a batch of positions (a match over many
                              games asks once per turn); `last_values` then holds each
                              position's value for the side to move, in [-1, 1]
  think(state, simulations)   one position searched afresh, with what the web board shows:
                              the root's visits, its value and the principal variation
  reset()                     forget the random stream earlier calls left (ties are broken at
                              random), so a match depends only on the agent's seed

A network agent consults its advisors (games.core.advice) before it searches: the first with
advice for a position is followed. Where that advice is decided (an exact endgame) the search
does not run; else the agent plays the most visited of the moves it allows (the network's
favourite among them where the search visited none), and an exact value replaces the
search's. Without advisors it is the network's search alone, as training's gate measures it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from alphazero.search.pure_mcts import PureMCTS
from alphazero.search.puct import BatchedSearch, SearchConfig
from games.core.advice import Advice, Advisor


@dataclass
class Thought:
    action: int            # the move the agent plays
    value: float           # the root's value for the side to move, in [-1, 1]
    visits: np.ndarray     # [num_actions] the root's visit counts (an exact move: all on it)
    line: list[int]        # the principal variation, starting with `action`


class Agent(Protocol):
    """What every agent answers, the network's search and pure MCTS alike (build.build makes
    them)."""
    last_values: np.ndarray  # [B] after best_actions: each position's value for its mover

    def best_actions(self, states: np.ndarray) -> np.ndarray: ...

    def think(self, state: np.ndarray, simulations: int) -> Thought: ...

    def reset(self) -> None: ...


class NetworkAgent:
    """`game` is the game the caller plays; `trained_game` the one the network was trained
    on, which the search and the advisors see (for a board inside a trained range, the same
    states with the network's input size; by default `game` itself)."""

    def __init__(self, game, inference, simulations: int, search_config: SearchConfig,
                 advisors: list[Advisor] = (), seed: int = 0, trained_game=None):
        self.game, self.inference, self.simulations = game, inference, simulations
        self.trained_game = trained_game or game
        self.advisors = list(advisors)
        settings = {}
        for advisor in self.advisors:
            settings.update(advisor.search_settings())
        self.search_config = dataclasses.replace(search_config, **settings)
        self.seed = seed
        self._searches: dict[int, BatchedSearch] = {}
        self.last_values = np.zeros(0, dtype=np.float32)

    def reset(self) -> None:
        self._searches.clear()  # each search seeds its tie-breaking stream when built

    def advice(self, state: np.ndarray) -> Advice | None:
        return next((advice for advice in (a.advise(state) for a in self.advisors)
                     if advice is not None), None)

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(states)
        if len(states) not in self._searches:
            self._searches[len(states)] = BatchedSearch(self.trained_game, len(states),
                                                        self.simulations, self.search_config,
                                                        seed=self.seed)
        search = self._searches[len(states)]
        advice = self._search(search, states)
        self.last_values = search.root_values()
        visits = search.visit_counts()
        actions = search.choose(visits, 0.0)
        priors = search.root_priors() if any(advice) else None
        for b, given in enumerate(advice):
            if given is not None:
                actions[b], self.last_values[b] = advised_move(given, visits[b], priors[b],
                                                               actions[b], self.last_values[b])
        return actions

    def think(self, state: np.ndarray, simulations: int) -> Thought:
        search = BatchedSearch(self.trained_game, 1, simulations, self.search_config,
                               seed=self.seed)
        given = self._search(search, state[None])[0]
        actions = self.game.num_actions  # the trained game may have more (a wider board)
        visits = search.visit_counts()[0][:actions]
        value = float(search.root_values()[0])
        line = search.principal_variation(0)
        if given is None:
            return Thought(line[0], value, visits, line)
        priors = search.root_priors()[0][:actions]
        action, value = advised_move(given, visits, priors, line[0] if line else -1, value)
        if given.decided:
            visits = np.zeros(actions, dtype=np.float32)
            visits[action] = 1.0
        return Thought(action, value, visits, line if line and line[0] == action else [action])

    def _search(self, search: BatchedSearch, states: np.ndarray) -> list[Advice | None]:
        """Search every position whose advice does not decide its move; the advice of each."""
        advice = [self.advice(state) if self.game.status(state) == 0 else None
                  for state in states]
        for b, state in enumerate(states):
            search.set_root(b, state)
            if advice[b] is not None and advice[b].decided:
                search.active[b] = False
        search.run(self.inference)
        return advice


def advised_move(advice: Advice, visits, priors, chosen: int, value: float) -> tuple[int, float]:
    """The move and value the agent gives after a search that chose `chosen` with root value
    `value`: `chosen` where the advice allows it, else the most visited allowed move (the
    network's favourite where the search visited none); the advice's exact value where it
    has one."""
    allowed = advice.allowed
    if allowed is not None and (chosen < 0 or not allowed[chosen]):
        chosen = int(np.argmax(np.where(allowed, visits + 1e-3 * priors, -1.0)))
    return chosen, value if advice.value is None else advice.value


class PureMCTSAgent:
    """UCT with random rollouts at a fixed number of playouts per move: the strength yardstick."""

    def __init__(self, game, playouts: int, seed: int = 0):
        self.game, self.playouts, self.seed = game, playouts, seed
        self.mcts = PureMCTS(game, playouts, seed=seed)
        self.last_values = np.zeros(0, dtype=np.float32)

    def reset(self) -> None:
        self.mcts.reseed()

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        visits, values = self.mcts.search(np.atleast_2d(states))
        self.last_values = (2.0 * values - 1.0).astype(np.float32)  # [0, 1] reward -> [-1, 1]
        return self.mcts.best_actions_from(visits)

    def think(self, state: np.ndarray, simulations: int) -> Thought:
        mcts = PureMCTS(self.game, simulations, seed=self.seed)
        visits, values = mcts.search(state[None])
        action = int(mcts.best_actions_from(visits)[0])
        return Thought(action, float(2.0 * values[0] - 1.0), visits[0].astype(np.float32), [action])
