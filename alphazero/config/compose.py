"""Composing a config of conf/, by every command (alphazero.config.command) and wherever a
game named on the way needs its tree (the web board, the engine's set_game).

Each composition is cached on disk by the text of conf/ and the overrides: Hydra takes
0.3-0.7 s a composition on a loaded 2-core machine (the web board and the engine's set_game
compose one for every game a user may name), reading one back 30 ms, and Hydra itself is
then not even imported (0.2 s). The cache keeps the MOST_CONFIGS compositions used last.
"""
from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

from omegaconf import DictConfig, OmegaConf, open_dict

from alphazero.config.paths import CACHE_DIR, CONF_DIR

MOST_CONFIGS = 256
CONFIGS = CACHE_DIR / "configs"
SCHEMA = Path(__file__).with_name("schema.py")


def compose_config(config_name: str, overrides: list[str]) -> DictConfig:
    """conf/<config_name>.yaml with the command-line style `overrides` applied."""
    return composition(config_name, overrides)[0]


def composition(config_name: str, overrides: list[str]) -> tuple[DictConfig, str | None]:
    """The composed tree, and the name of the conf/game/ file it took (`game=NAME`, or a
    recipe's choice): what names a run's folders."""
    cached = CONFIGS / f"{composition_key(config_name, overrides)}.json"
    try:
        saved = json.loads(cached.read_text())
        cfg = OmegaConf.create(saved["tree"])
        OmegaConf.set_struct(cfg, True)  # as Hydra composes it
        os.utime(cached)  # used now: the compositions used last are kept
        return cfg, saved["game_choice"]
    except Exception:  # none yet, or a torn or foreign file: compose afresh
        pass
    cfg, game_choice = _compose(config_name, overrides)
    try:
        CONFIGS.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f".{cached.name}.{os.getpid()}")
        partial.write_text(json.dumps({"game_choice": game_choice, "tree": OmegaConf.to_yaml(cfg)}))
        os.replace(partial, cached)  # whole or not at all
        for stale in sorted(CONFIGS.glob("*.json"), key=lambda p: p.stat().st_mtime)[:-MOST_CONFIGS]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written: the next start composes again
    return cfg, game_choice


def composition_key(config_name: str, overrides: list[str]) -> str:
    hydra = metadata.version("hydra-core")
    digest = hashlib.sha256(json.dumps([hydra, config_name, list(overrides)]).encode())
    digest.update(SCHEMA.read_bytes())  # the defaults under conf/
    for path in sorted(CONF_DIR.rglob("*.yaml")):
        digest.update(str(path.relative_to(CONF_DIR)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


def _compose(config_name: str, overrides: list[str]) -> tuple[DictConfig, str | None]:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from alphazero.config.schema import register
    register()

    def composed():
        cfg = compose(config_name=config_name, overrides=overrides, return_hydra_config=True)
        game_choice = cfg.hydra.runtime.choices.get("game")
        with open_dict(cfg):
            del cfg["hydra"]
        return cfg, game_choice
    if GlobalHydra.instance().is_initialized():
        return composed()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return composed()
