"""What every command does with its command line before any work: `-h` or `--help` prints
the command's usage (what it does, its main settings with their defaults, where the full
reference is) and exits 0; a setting the command does not have, misspelled or added with
`+`, or given a value of the wrong type, is one sentence naming the closest it has, and exit
code 2. `train`, `evaluate`, `curve`, `play`, `engine`, `serve` and `export` start here
(`check_command_line`); `bench`, whose settings are its own rather than a tree of conf/,
answers alike from its usage here (alphazero.bench.speeds). USAGES lists every command:
`python -m alphazero` prints it.
"""
from __future__ import annotations

import difflib
import io
import sys
from dataclasses import dataclass
from typing import TextIO

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import (ConfigAttributeError, ConfigKeyError, OmegaConfBaseException,
                              ValidationError)

from alphazero.config import schema
from alphazero.config.choices import ADVISORS, GROUPS, check_group_choices, expand_game_choice
from alphazero.config.compose import compose_config
from alphazero.config.errors import ConfigError
from alphazero.config.paths import CONF_DIR

HELP_FLAGS = ("-h", "--help")


@dataclass(frozen=True)
class Usage:
    synopsis: str            # the command line, with its most used settings
    does: str                # what the command does, one sentence
    settings: tuple = ()     # the main settings, shown with their defaults
    reference: str = "docs/training.md"


USAGES = {
    "train": Usage("python -m alphazero.train game=NAME [key=value ...]",
                   "Trains a network from zero with the game's recipe (conf/game/NAME.yaml).",
                   ("train.max_games", "train.max_minutes", "train.resume", "seed",
                    "threads", "device", "selfplay.precision", "train.precision")),
    "evaluate": Usage("python -m alphazero.evaluate game=NAME [checkpoint=PATH] [key=value ...]",
                      "Measures a network against pure MCTS, another network, a GTP program or "
                      "an exact solver.",
                      ("checkpoint", "opponent", "eval.levels", "eval.games", "eval.opening_plies",
                       "mcts.simulations", "search_alone", "solver_positions", "seed")),
    "curve": Usage("python -m alphazero.curve game=NAME [run=FOLDER] [key=value ...]",
                   "Measures every snapshot a training run kept: win rates or an Elo ladder.",
                   ("run", "curve.mode", "eval.levels", "eval.games", "opponent")),
    "play": Usage("python -m alphazero.play game=NAME [key=value ...]",
                  "Plays a game against the agent in the terminal.",
                  ("checkpoint", "player", "human", "mcts.simulations", "search_alone")),
    "engine": Usage("python -m alphazero.engine game=NAME [key=value ...]",
                    "Speaks GTP on stdin and stdout, for a GUI or a match tool.",
                    ("checkpoint", "player", "mcts.simulations", "search_alone"),
                    "docs/judges.md"),
    "serve": Usage("python -m alphazero.serve [port=N] [host=ADDRESS] [key=value ...]",
                   "Serves the web board on this machine (loopback only unless told).",
                   ("host", "port", "run", "max_sessions", "device"), "docs/serve.md"),
    "export": Usage("python -m alphazero.export checkpoint=PATH [out=FILE]",
                    "Writes a checkpoint's network as an ONNX model.",
                    ("checkpoint", "out")),
    # its settings are its own (no conf/ tree): alphazero.bench.speeds checks them alike
    "bench": Usage("python -m alphazero.bench search|pure|network|selfplay|train|engines "
                   "game=NAME [key=value ...] [--json]",
                   "Measures the speed of the search, the network, self-play or training.",
                   reference="docs/performance.md"),
}


def text_input() -> TextIO:
    """stdin that reads bytes that are not UTF-8 as replacement characters instead of raising
    (play's and the engine's input)."""
    return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")


def check_command_line(command: str, config_name: str, argv: list[str]) -> None:
    """Help, or exit 2 on a group choice or a setting the command lacks (or given a value of
    the wrong type); returns when the command line is good to run."""
    argv = expand_game_choice(argv)  # game=openspiel:SPEC (alphazero.config.choices)
    if any(word in HELP_FLAGS for word in argv):
        print(usage_text(command, config_name, argv))
        sys.exit(0)
    check_group_choices(argv)
    try:
        unknown_setting(command, config_name, argv)
        typed_setting(config_name, argv)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


def unknown_setting(command: str, config_name: str, argv: list[str]) -> None:
    """A ConfigError naming the first setting of argv that conf/<config_name>.yaml lacks,
    with the closest it has. `+key=value` counts as the key: a misspelled key must not be
    added silently (a config group such as `+recipe=quick` may be added)."""
    plain = [word for word in argv if "=" in word]
    base = [word for word in plain if not word.startswith("+")]
    cfg = compose_config(config_name, [w for w in base if w.partition("=")[0] in GROUPS])
    known = flat_keys(cfg)
    for word in plain:
        key = word.lstrip("+~").partition("=")[0]
        if key in GROUPS or key in known or key.startswith(ADVISORS):
            continue  # an advisor's name is checked against the game's (config.settings)
        raise ConfigError(no_such_setting(command, key, known))


def composition_error(config_name: str, error: Exception) -> str:
    """Hydra's refusal of an override as one sentence: a setting the command lacks (with the
    closest it has), or a value of the wrong type (with what the setting takes)."""
    cause = error.__cause__ or error
    key = getattr(cause, "full_key", None)
    if isinstance(cause, (ConfigKeyError, ConfigAttributeError)) or "not in struct" in str(cause):
        key = key or str(error).split("'")[1]
        known = flat_keys(compose_config(config_name, []))
        return no_such_setting(config_name, key, known)
    if isinstance(cause, ValidationError) and key:
        value = str(cause).split("'")[1] if "'" in str(cause) else "?"
        return f"{key} must be {schema.type_words(key)}, not '{value}'."
    return f"bad setting: {str(error).splitlines()[0]}"


def typed_setting(config_name: str, argv: list[str]) -> None:
    """A ConfigError where a value does not fit its setting's type (alphazero.config.schema),
    so that every command refuses it in one sentence before it starts."""
    from hydra.errors import HydraException
    try:
        compose_config(config_name, argv)
    except (HydraException, OmegaConfBaseException) as error:
        raise ConfigError(composition_error(config_name, error)) from None


def no_such_setting(command: str, key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = (f"; did you mean '{close[0]}'?" if close
            else f" (python -m alphazero.{command} --help lists the main ones).")
    return f"there is no setting '{key}' for {command}{hint}"


def flat_keys(cfg: DictConfig) -> list[str]:
    """Every key of the tree, its inner nodes too, dotted: mcts, mcts.simulations, ..."""
    def walk(tree: dict, prefix: str):
        for key, value in tree.items():
            yield prefix + key
            if isinstance(value, dict):
                yield from walk(value, f"{prefix}{key}.")
    return list(walk(OmegaConf.to_container(cfg, resolve=False), ""))


def usage_text(command: str, config_name: str, argv: list[str]) -> str:
    usage = USAGES[command]
    chosen = [w for w in argv if w.lstrip("+").partition("=")[0] in GROUPS]
    cfg = compose_config(config_name, chosen)
    lines = [f"usage: {usage.synopsis}", "", usage.does, "", "main settings (default):"]
    if "game" in cfg:
        params = OmegaConf.to_container(cfg.game.params)
        lines.append(f"  the game: {cfg.game.name} {params}")
    width = max(map(len, usage.settings))
    for key in usage.settings:
        value = OmegaConf.select(cfg, key, throw_on_missing=False)
        shown = OmegaConf.to_container(value) if isinstance(value, DictConfig) else value
        lines.append(f"  {key:<{width}}  {'null' if shown is None else shown}")
    lines.append("")
    if "game" in cfg:
        games = ", ".join(sorted(path.stem for path in (CONF_DIR / "game").glob("*.yaml")))
        lines.append(f"games (game=NAME): {games}")
    lines.append(f"every setting, with its default and meaning: docs/settings.md; the "
                 f"guide: {usage.reference}")
    return "\n".join(lines)
