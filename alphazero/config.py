"""Turning the Hydra config tree into the components' own settings, with clear errors."""
from __future__ import annotations

import os

from omegaconf import DictConfig, OmegaConf

from alphazero.mcts import SearchConfig
from alphazero.selfplay import SelfPlayConfig
from games import Game, make_game


class ConfigError(ValueError):
    """A config value out of range; the message is one sentence naming it."""


# (config key, lowest allowed value) for every number that must be positive or non-negative
_BOUNDS = [("mcts.simulations", 1), ("mcts.c_puct", 0), ("mcts.fpu_reduction", 0),
           ("mcts.dirichlet_epsilon", 0), ("mcts.leaves_per_tree", 1), ("mcts.arena_factor", 1),
           ("selfplay.games_in_parallel", 1), ("selfplay.temperature_moves", 0),
           ("replay.capacity", 1), ("train.positions_per_round", 1), ("train.sample_ratio", 0),
           ("train.min_replay", 0), ("train.batch_size", 1), ("train.lr", 0), ("train.l2", 0),
           ("train.checkpoint_minutes", 0)]


def validate(cfg: DictConfig) -> None:
    for key, low in _BOUNDS:
        value = OmegaConf.select(cfg, key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < low:
            raise ConfigError(f"{key} must be a number of at least {low}, not {value!r}.")
    if cfg.mcts.dirichlet_epsilon > 1:
        raise ConfigError(f"mcts.dirichlet_epsilon must be between 0 and 1, not {cfg.mcts.dirichlet_epsilon}.")
    worker_count(cfg.selfplay.workers)


def build_game(cfg: DictConfig) -> Game:
    return make_game(cfg.game.name, **OmegaConf.to_container(cfg.game.params))


def worker_count(setting) -> int:
    """0 plays in the training process. 'auto' does that on two cores or fewer (training
    takes a small share of the time, and one process can use both cores for the network),
    and else leaves one core to the trainer."""
    if setting == "auto":
        cores = os.cpu_count() or 1
        return 0 if cores <= 2 else cores - 1
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 0:
        raise ConfigError(f"selfplay.workers must be auto or a whole number of at least 0, not {setting!r}.")
    return setting


def search_config(cfg: DictConfig) -> SearchConfig:
    m = cfg.mcts
    return SearchConfig(c_puct=m.c_puct, fpu_reduction=m.fpu_reduction,
                        dirichlet_alpha=m.dirichlet_alpha, dirichlet_epsilon=m.dirichlet_epsilon,
                        leaves_per_tree=m.leaves_per_tree, arena_factor=m.arena_factor)


def selfplay_config(cfg: DictConfig) -> SelfPlayConfig:
    s = cfg.selfplay
    return SelfPlayConfig(simulations=cfg.mcts.simulations, games_in_parallel=s.games_in_parallel,
                          temperature_moves=s.temperature_moves, noise=s.noise)
