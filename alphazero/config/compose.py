"""Composing a config of conf/ outside a command's @hydra.main, or inside one (the engine's
set_game, which composes the new game's tree while the command's Hydra is running)."""
from __future__ import annotations

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig

from alphazero.config.paths import CONF_DIR


def compose_config(config_name: str, overrides: list[str]) -> DictConfig:
    """conf/<config_name>.yaml with the command-line style `overrides` applied."""
    if GlobalHydra.instance().is_initialized():
        return compose(config_name=config_name, overrides=overrides)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return compose(config_name=config_name, overrides=overrides)
