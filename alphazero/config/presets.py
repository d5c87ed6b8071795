"""The games a user can pick by name: every file of conf/game/ (with the config `play`
composes for it) and every registered game without one, and each one's playing budget.
The web board lists them; the GTP engine's set_game takes a new game's budget from them.
"""
from __future__ import annotations

from dataclasses import dataclass

from omegaconf import DictConfig, OmegaConf

from alphazero.config.choices import OPENSPIEL_PREFIX
from alphazero.config.compose import compose_config
from alphazero.config.paths import CONF_DIR
from games import GameError, game_names, make_game


@dataclass
class Preset:
    key: str            # a conf/game/ file's name, or a registered game's name
    game_name: str
    params: dict        # the game's parameters as configured
    simulations: int    # the game's playing budget (game.play_simulations)
    cfg: DictConfig     # what `python -m alphazero.play game=<key>` composes


def compose_play(overrides: list[str]) -> DictConfig:
    return compose_config("play", overrides)


def load_presets(overrides: list[str] = ()) -> dict[str, Preset]:
    """Every game a user may name; `overrides` (a command line's device=...) on each config."""
    presets = {}
    for path in sorted((CONF_DIR / "game").glob("*.yaml")):
        cfg = compose_play([f"game={path.stem}", *overrides])
        presets[path.stem] = Preset(path.stem, cfg.game.name, OmegaConf.to_container(cfg.game.params),
                                    cfg.game.play_simulations, cfg)
    configured = {p.game_name for p in presets.values()}
    base = compose_play(list(overrides))
    for name in game_names():
        if name not in configured:  # a game with no config file plays with its own defaults
            presets[name] = Preset(name, name, {}, base.game.play_simulations, base)
    return presets


def fitting_preset(game, presets: dict[str, Preset]) -> Preset | None:
    """The config whose boards include this game's (one for exactly these parameters first),
    or None when no config covers them."""
    fitting = [(preset.params != game.params(), preset.key) for preset in presets.values()
               if preset.game_name == game.name and game.played_by(preset.params)]
    return presets[min(fitting)[1]] if fitting else None


def playing_budget(game, presets: dict[str, Preset]) -> int | None:
    """The playing budget of the config that covers this game's boards, or None."""
    preset = fitting_preset(game, presets)
    return preset.simulations if preset else None


def advisors_of(game, presets: dict[str, Preset]) -> dict:
    """The advisors (game.advisors) of the config covering this game's boards; none where no
    config covers them."""
    preset = fitting_preset(game, presets)
    return OmegaConf.to_container(preset.cfg.game.get("advisors") or {}) if preset else {}


def named_game(key: str, **params):
    """The game `game=KEY` names on every command: a registered game with its own defaults,
    a conf/game/ file's game with that file's parameters (connect4_classic: Connect-4 on
    6x7), or one of OpenSpiel's (openspiel:hex(board_size=9)); `params` override them."""
    if key.startswith(OPENSPIEL_PREFIX):
        return make_game("openspiel", **{"game": key[len(OPENSPIEL_PREFIX):], **params})
    if key in game_names():
        return make_game(key, **params)
    if (CONF_DIR / "game" / f"{key}.yaml").is_file():
        configured = compose_play([f"game={key}"]).game
        return make_game(configured.name, **{**OmegaConf.to_container(configured.params), **params})
    choices = sorted({path.stem for path in (CONF_DIR / "game").glob("*.yaml")} | set(game_names()))
    raise GameError(f"unknown game '{key}'; choose one of: {', '.join(choices)}.")
