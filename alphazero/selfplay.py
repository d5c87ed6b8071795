"""One self-play worker: K games at once, one network call per search step for all of them.

Each finished game comes out as a `GameRecord`: for every position the encoded planes, the
search's visit distribution pi, the outcome z from the view of the side to move there (for
Connect6 the side placing that stone), and the position's symmetry maps, which the replay
buffer uses to store every symmetric image.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from alphazero.mcts import BatchedSearch, SearchConfig
from games import DRAW, FIRST_WON, ONGOING


@dataclass
class SelfPlayConfig:
    simulations: int = 200
    games_in_parallel: int = 128  # K: trees searched together, one batch per search step
    temperature_moves: int = 12  # plies played with tau = 1 (sampled); argmax after
    noise: bool = True  # Dirichlet noise at the root


@dataclass
class GameRecord:
    planes: np.ndarray  # uint8 [n, P, H, W]
    pis: np.ndarray  # float32 [n, A]
    zs: np.ndarray  # float32 [n]
    cell_syms: np.ndarray  # int16 [n, G, H*W]
    action_syms: np.ndarray  # int16 [n, G, A]
    actions: np.ndarray  # int16 [n]: the move played from each position
    result: int  # final status: FIRST_WON, SECOND_WON or DRAW

    @property
    def length(self) -> int:
        return len(self.zs)


@dataclass
class _History:
    planes: list = field(default_factory=list)
    pis: list = field(default_factory=list)
    movers: list = field(default_factory=list)
    cell_syms: list = field(default_factory=list)
    action_syms: list = field(default_factory=list)
    actions: list = field(default_factory=list)


def outcome_for(result: int, mover: int) -> float:
    """z for a position whose side to move is `mover` (0 = first player)."""
    if result == DRAW:
        return 0.0
    return 1.0 if (result == FIRST_WON) == (mover == 0) else -1.0


class SelfPlayWorker:
    """Plays K games at once with the batched search; `play_moves` advances every game by
    one move and returns the games that finished."""

    def __init__(self, game, evaluator, config: SelfPlayConfig, search_config: SearchConfig,
                 seed: int = 0):
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.search = BatchedSearch(game, config.games_in_parallel, config.simulations,
                                    search_config, seed=seed)
        self.states = [self._new_game(b) for b in range(config.games_in_parallel)]
        self.histories = [_History() for _ in range(config.games_in_parallel)]

    def _new_game(self, b: int) -> np.ndarray:
        state = self.game.new_state(self.rng)
        self.search.set_root(b, state)
        return state

    def play_move(self) -> list[GameRecord]:
        """Search every game once, play the chosen moves, return the finished games."""
        search, game = self.search, self.game
        search.run(self.evaluator, add_noise=self.config.noise)
        visits = search.visit_counts()
        plies = np.array([game.kernels["ply"](s) for s in self.states])
        temperature = np.where(plies < self.config.temperature_moves, 1.0, 0.0)
        actions = search.choose(visits, temperature)
        finished = []
        for b, state in enumerate(self.states):
            history = self.histories[b]
            cells, acts = game.symmetries(state)
            history.planes.append(game.encode(state).astype(np.uint8))
            history.pis.append(visits[b] / visits[b].sum())
            history.movers.append(game.to_move(state))
            history.cell_syms.append(cells.astype(np.int16))
            history.action_syms.append(acts.astype(np.int16))
            history.actions.append(int(actions[b]))
            game.play(state, int(actions[b]))
            search.advance(b, int(actions[b]))
            result = game.status(state)
            if result != ONGOING:
                finished.append(self._record(history, result))
                self.histories[b] = _History()
                self.states[b] = self._new_game(b)
        return finished

    @staticmethod
    def _record(history: _History, result: int) -> GameRecord:
        return GameRecord(
            planes=np.stack(history.planes), pis=np.stack(history.pis).astype(np.float32),
            zs=np.array([outcome_for(result, m) for m in history.movers], dtype=np.float32),
            cell_syms=np.stack(history.cell_syms), action_syms=np.stack(history.action_syms),
            actions=np.array(history.actions, dtype=np.int16), result=result)
