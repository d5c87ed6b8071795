"""Players for matches, play against a human and the GTP engine.

A player picks one move for each of a batch of positions at once (so a match over many
games calls it once per turn, not once per game): `best_actions(states) -> actions`, and
`last_values` holds its value estimate of each position for the side to move, in [-1, 1].
`reset()` forgets what earlier calls left behind (the random stream that breaks ties), so
a match played after it depends only on the player's seed, not on the matches before it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from omegaconf import DictConfig

from alphazero.nn import checkpoint
from alphazero.config.settings import search_config as configured_search
from alphazero.agent.endgame import ExactEndgame, exact_endgame
from alphazero.search.puct import BatchedSearch, SearchConfig
from alphazero.agent.move_rules import move_rule as configured_move_rule, ruled_move
from alphazero.nn.network import Inference, build_model, select_device
from alphazero.config.paths import PRETRAINED_DIR
from alphazero.search.pure_mcts import PureMCTS
from games import make_game


class AlphaZeroPlayer:
    """The network guiding PUCT, without noise, playing the most visited move; with an
    `endgame` (alphazero.agent.endgame), the exact solver's move in the positions it covers; with
    a `move_rule` (alphazero.agent.move_rules), the most visited of the moves the rule allows."""

    def __init__(self, game, inference, simulations: int, search_config: SearchConfig | None = None,
                 seed: int = 0, endgame: ExactEndgame | None = None, move_rule=None):
        self.game = game
        self.inference = inference
        self.simulations = simulations
        self.search_config = search_config or SearchConfig()
        self.seed = seed
        self.endgame = endgame
        self.move_rule = move_rule
        self._searches: dict[int, BatchedSearch] = {}
        self.last_values = np.zeros(0, dtype=np.float32)

    def _search_for(self, count: int) -> BatchedSearch:
        if count not in self._searches:
            self._searches[count] = BatchedSearch(self.game, count, self.simulations,
                                                  self.search_config, seed=self.seed)
        return self._searches[count]

    def reset(self) -> None:
        self._searches.clear()  # each search seeds its tie-breaking stream when built

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(states)
        search = self._search_for(len(states))
        for b, state in enumerate(states):
            search.set_root(b, state)
        solved = self.endgame.covers(states) if self.endgame else np.zeros(len(states), np.bool_)
        search.active[solved] = False  # not searched: the solver moves there
        search.run(self.inference)
        self.last_values = search.root_values()
        visits = search.visit_counts()
        actions = search.choose(visits, 0.0)
        actions[~search.active] = -1
        if self.move_rule is not None:
            priors = search.root_priors()
            for b in np.flatnonzero(search.active):
                actions[b], self.last_values[b] = ruled_move(
                    self.move_rule, states[b], visits[b], priors[b], actions[b],
                    self.last_values[b])
        for b in np.flatnonzero(solved):
            actions[b], self.last_values[b] = self.endgame.best_move(states[b])
        return actions


class PureMCTSPlayer:
    """Pure MCTS at a fixed number of playouts per move: the strength yardstick."""

    def __init__(self, game, playouts: int, seed: int = 0):
        self.mcts = PureMCTS(game, playouts, seed=seed)
        self.playouts = playouts
        self.last_values = np.zeros(0, dtype=np.float32)

    def reset(self) -> None:
        self.mcts.reseed()

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        visits, values = self.mcts.search(np.atleast_2d(states))
        self.last_values = (2.0 * values - 1.0).astype(np.float32)  # [0, 1] reward -> [-1, 1]
        return self.mcts.best_actions_from(visits)


def default_checkpoint(game_name: str, game_params: dict) -> Path | None:
    """The shipped checkpoint whose network plays this game's boards: one trained on exactly
    these parameters first, else one whose board ranges include them."""
    game = make_game(game_name, **game_params)
    fitting = []
    for path in sorted(PRETRAINED_DIR.glob(f"{game_name}*.pt")):
        trained = checkpoint.load(path).get("game_params")
        if game.played_by(trained):
            fitting.append((trained != game.params(), path))
    return min(fitting)[1] if fitting else None


def shipped_boards(game_name: str) -> str:
    """What the shipped networks of a game play, for an error message."""
    boards = [checkpoint.describe_params(checkpoint.load(path).get("game_params"))
              for path in sorted(PRETRAINED_DIR.glob(f"{game_name}*.pt"))]
    return "; ".join(boards) if boards else "none is shipped"


def load_network(saved: dict, game, device: str = "auto", precision: str = "float32") -> Inference:
    """A loaded checkpoint's network, ready for search."""
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    torch_device = select_device(device)
    return Inference(model.to(torch_device), torch_device, precision)


def make_player(game, cfg: DictConfig, kind: str, checkpoint_path=None, seed: int = 0):
    """`kind` 'az' (a checkpoint, or the shipped one) or 'pure' (cfg.pure.playouts)."""
    if kind == "pure":
        return PureMCTSPlayer(game, cfg.pure.playouts, seed=seed)
    if kind != "az":
        raise ValueError(f"unknown player '{kind}'; choose az or pure.")
    path = checkpoint_path or default_checkpoint(game.name, game.params())
    if path is None:
        raise checkpoint.CheckpointError(
            f"no shipped network plays {game.name} with {checkpoint.describe_params(game.params())} "
            f"(the shipped {game.name} networks play: {shipped_boards(game.name)}); pass "
            "checkpoint=PATH or use player=pure.")
    return checkpoint_player(game, cfg, checkpoint.load(path), path, seed)


def checkpoint_player(game, cfg: DictConfig, saved: dict, path, seed: int = 0) -> AlphaZeroPlayer:
    """The player of a loaded checkpoint, searched as cfg says (the discount it was trained
    with unless cfg gives one), with the endgame solver and move rule cfg.game asks for.
    A network trained on a range of boards searches `game`'s positions as the game it was
    trained on (same states, its own input size)."""
    checkpoint.check_plays(saved, game, path)
    trained_game = make_game(game.name, **saved["game_params"])
    inference = load_network(saved, trained_game, cfg.device, cfg.selfplay.precision)
    search = configured_search(cfg, trained_discount(saved), trained_score_utility(saved))
    return AlphaZeroPlayer(trained_game, inference, cfg.mcts.simulations, search, seed=seed,
                           endgame=exact_endgame(trained_game, cfg.game),
                           move_rule=configured_move_rule(trained_game, cfg.game))


def trained_discount(saved: dict) -> float:
    """The value discount a checkpoint was trained with (1 before the setting existed)."""
    return saved.get("config", {}).get("mcts", {}).get("discount") or 1.0


def trained_score_utility(saved: dict) -> float:
    """The score utility a checkpoint was trained with (0 before the setting existed)."""
    return saved.get("config", {}).get("mcts", {}).get("score_utility") or 0.0
