"""One self-play worker: K games at once, one network call per search step for all of them.

Each finished game comes out as a `GameRecord`: for every recorded position the encoded
planes, the search's visit distribution pi, the outcome z from the view of the side to move
there (for Connect6 the side placing that stone; times the search's discount per ply left to
play, when one is set), and the position's symmetry maps, which the replay buffer uses to
store every symmetric image.
Each position also carries q, the root search's mean value:
the training loop may mix it into the value target (`value_targets`): z is one noisy
outcome, q the search's estimate of the same position, so the mix has less variance (the
averaging that helped in Oracle's "Lessons from AlphaZero" on Connect Four).

Playout cap randomisation (KataGo, Wu 2019): with `full_search_share` below 1, each move is a
full search (`simulations`, root noise, recorded) with that probability, else a fast one
(`fast_simulations`, no noise, not recorded). Games get cheaper, so more of them - and more
independent outcomes for the value head - come from the same compute.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from alphazero.search.puct import BatchedSearch, SearchConfig
from alphazero.search.openings import random_opening_moves
from games import DRAW, FIRST_WON, ONGOING
from games.core.base import fits_uint8


@dataclass
class SelfPlayConfig:
    """Self-play's settings; their defaults and meaning are alphazero.config.schema's `selfplay:`."""
    simulations: int  # mcts.simulations: the full search's budget
    games_in_parallel: int  # K: trees searched together, one batch per search step
    temperature_moves: int  # plies played with tau = 1 (sampled); argmax after
    full_search_share: float  # playout cap randomisation: share of full, recorded searches
    fast_simulations: int  # the other moves' search budget
    opening_plies: int  # this many uniformly random moves start a share of the games
    opening_share: float  # (not recorded): the positions users reach from random openings

    @classmethod
    def from_cfg(cls, cfg, **overrides) -> "SelfPlayConfig":
        """From a composed config tree (its `selfplay:` and `mcts.simulations`)."""
        settings = {name: cfg.selfplay[name] for name in cls.__dataclass_fields__
                    if name != "simulations"}
        settings["simulations"] = cfg.mcts.simulations
        settings.update(overrides)
        return cls(**settings)


@dataclass
class GameRecord:
    planes: np.ndarray  # uint8 [n, P, H, W]
    pis: np.ndarray  # float32 [n, A]
    zs: np.ndarray  # float32 [n]: the outcome
    qs: np.ndarray  # float32 [n]: the root search's value
    cell_syms: np.ndarray  # int16 [n, G, H*W]
    action_syms: np.ndarray  # int16 [n, G, A]
    moves: np.ndarray  # int16 [plies]: every move of the game, recorded or not
    recorded_plies: np.ndarray  # int16 [n]: the ply of each recorded position
    result: int  # final status: FIRST_WON, SECOND_WON or DRAW
    start: np.ndarray  # the state the game started from, before any opening move
    move_values: np.ndarray  # float32 [plies]: the root search's value before each move (0
    # before a random opening move), from the view of the side to move
    network: int = 0  # the version of the weights that played the last move (the pool's stamp)

    @property
    def length(self) -> int:
        """Recorded positions."""
        return len(self.zs)

    @property
    def plies(self) -> int:
        return len(self.moves)


@dataclass
class _History:
    planes: list = field(default_factory=list)
    pis: list = field(default_factory=list)
    root_values: list = field(default_factory=list)
    movers: list = field(default_factory=list)
    cell_syms: list = field(default_factory=list)
    action_syms: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    recorded_plies: list = field(default_factory=list)
    start: np.ndarray | None = None
    move_values: list = field(default_factory=list)


def stored_planes(game, state: np.ndarray) -> np.ndarray:
    """The position's input planes as uint8, as the replay buffer keeps them; a game whose
    planes break the rule (whole numbers from 0 to 255, games.core.base) is refused rather
    than truncated."""
    planes = game.encode(state)
    if not fits_uint8(planes):
        raise ValueError(f"{game.name}'s input planes must hold whole numbers from 0 to 255 "
                         f"(games.core.base); they hold {planes.min()} to {planes.max()}.")
    return planes.astype(np.uint8)


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
        if config.simulations < 2:
            raise ValueError("self-play needs at least 2 simulations a move: the first only "
                             "expands a fresh root and visits no move.")
        if not 0.0 < config.full_search_share <= 1.0:
            raise ValueError("full_search_share must be above 0 and at most 1.")
        if config.full_search_share < 1.0 and not 2 <= config.fast_simulations <= config.simulations:
            raise ValueError("fast_simulations must be from 2 (the first only expands a fresh "
                             "root) to the full search's simulations.")
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.rng = np.random.default_rng(seed)
        self.search = BatchedSearch(game, config.games_in_parallel, config.simulations,
                                    search_config, seed=seed)
        self.histories = [_History() for _ in range(config.games_in_parallel)]
        self.states = [self._new_game(b) for b in range(config.games_in_parallel)]

    def _new_game(self, b: int) -> np.ndarray:
        state = self.game.new_state(self.rng)
        self.histories[b].start = state.copy()
        cfg = self.config
        # Without openings, draw nothing: the worker's random stream stays what it was before.
        if cfg.opening_plies and self.rng.random() < cfg.opening_share:
            for move in random_opening_moves(self.game, state, cfg.opening_plies, self.rng):
                self.game.play(state, move)
                self.histories[b].moves.append(move)
                self.histories[b].move_values.append(0.0)
        self.search.set_root(b, state)
        return state

    def play_move(self) -> list[GameRecord]:
        """Search every game once, play the chosen moves, return the finished games."""
        search, game, cfg = self.search, self.game, self.config
        # With the cap off, draw nothing: the worker's random stream stays what it was before.
        full = (self.rng.random(search.num_trees) < cfg.full_search_share
                if cfg.full_search_share < 1.0 else np.ones(search.num_trees, dtype=np.bool_))
        search.run(self.evaluator, add_noise=full,
                   simulations=np.where(full, cfg.simulations, cfg.fast_simulations))
        visits = search.visit_counts()
        root_values = search.root_values()
        plies = np.array([game.ply(s) for s in self.states])
        temperature = np.where(plies < cfg.temperature_moves, 1.0, 0.0)
        actions = search.choose(visits, temperature)
        finished = []
        for b, state in enumerate(self.states):
            history = self.histories[b]
            if full[b]:
                cells, acts = game.symmetries(state)
                history.planes.append(stored_planes(game, state))
                history.pis.append(visits[b] / visits[b].sum())
                history.root_values.append(root_values[b])
                history.movers.append(game.to_move(state))
                history.cell_syms.append(cells.astype(np.int16))
                history.action_syms.append(acts.astype(np.int16))
                history.recorded_plies.append(len(history.moves))
            history.moves.append(int(actions[b]))
            history.move_values.append(root_values[b])
            game.play(state, int(actions[b]))
            search.advance(b, int(actions[b]))
            result = game.status(state)
            if result != ONGOING:
                finished.append(self._record(history, result))
                self.histories[b] = _History()
                self.states[b] = self._new_game(b)
        return finished

    def _outcomes(self, history: _History, result: int) -> np.ndarray:
        """z per recorded position, shrunk by the search's discount per ply left to play: the
        value head learns what the search backs up."""
        outcomes = np.array([outcome_for(result, m) for m in history.movers], dtype=np.float64)
        plies_left = len(history.moves) - np.array(history.recorded_plies)
        values = outcomes * self.search.config.discount ** plies_left
        return values.astype(np.float32)

    def _record(self, history: _History, result: int) -> GameRecord:
        whole_game = {"moves": np.array(history.moves, dtype=np.int16), "result": result,
                      "start": history.start,
                      "move_values": np.array(history.move_values, dtype=np.float32)}
        if not history.recorded_plies:  # every move was a fast search: a game, no samples
            g = self.game
            return GameRecord(
                planes=np.zeros((0, g.planes, g.height, g.width), dtype=np.uint8),
                pis=np.zeros((0, g.num_actions), dtype=np.float32), zs=np.zeros(0, dtype=np.float32),
                qs=np.zeros(0, dtype=np.float32),
                cell_syms=np.zeros((0, 1, g.height * g.width), dtype=np.int16),
                action_syms=np.zeros((0, 1, g.num_actions), dtype=np.int16),
                recorded_plies=np.zeros(0, dtype=np.int16), **whole_game)
        return GameRecord(
            planes=np.stack(history.planes), pis=np.stack(history.pis).astype(np.float32),
            zs=self._outcomes(history, result),
            qs=np.array(history.root_values, dtype=np.float32),
            cell_syms=np.stack(history.cell_syms), action_syms=np.stack(history.action_syms),
            recorded_plies=np.array(history.recorded_plies, dtype=np.int16), **whole_game)


def value_targets(record: GameRecord, q_share: float) -> np.ndarray:
    """The value target of each recorded position: (1 - q_share) * z + q_share * q."""
    return ((1.0 - q_share) * record.zs + q_share * record.qs).astype(np.float32)
