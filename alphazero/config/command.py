"""How every command starts (train, evaluate, curve, play, engine, serve, export, bench):
its tree of conf/ composed with the command line's overrides, a note on stderr where a first
start compiles kernels, and a user's mistake told in one sentence on stderr with exit code 2
instead of a traceback; the commands that write results get their folder here
(`output_folder`: `out_dir`, or runs/<game>/...).

They compose with Hydra's compose API rather than @hydra.main (alphazero.config.compose, whose
cache spares even Hydra's import): the same overrides, about a second less at every start
on a loaded 2-core machine, and every bad override one sentence. Each takes the settings
every command has, `threads=N` and `device=...` (a command that has no device, export, refuses
it by name like any setting it lacks).
"""
from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Callable

from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from alphazero.config.choices import check_group_choices, expand_game_choice
from alphazero.config.command_line import composition_error
from alphazero.config.compose import composition
from alphazero.config.errors import ConfigError
from games.core.base import GameError
from games.core.compile_note import tell_first_compilation


def command_config(config_name: str, argv: list[str]) -> DictConfig:
    """conf/<config_name>.yaml with the command line's overrides, or a ConfigError. From
    here on a first start's Numba compilation says so on stderr."""
    return command_tree(config_name, argv)[0]


def command_tree(config_name: str, argv: list[str]) -> tuple[DictConfig, str | None]:
    """`command_config`, and the conf/game/ file the tree took (what names a run's folders)."""
    tell_first_compilation()
    argv = expand_game_choice(argv)
    check_group_choices(argv)
    try:
        return composition(config_name, argv)
    except Exception as error:
        from hydra.errors import HydraException  # imported by then
        if not isinstance(error, (HydraException, OmegaConfBaseException)):
            raise
        raise ConfigError(composition_error(config_name, error)) from None


def output_folder(out_dir: str | None, game_choice: str | None, *below: str) -> Path:
    """Where a command writes its results: `out_dir` as the user gave it, else
    runs/<game>/[below/]<date and time> (to the microsecond: two commands started in the same
    second never share a folder)."""
    if out_dir:
        return Path(out_dir)
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S.%f")
    return Path("runs", game_choice or "game", *below, stamp)


def run_or_exit(session: Callable[[], None]) -> None:
    """Run a command; a user's mistake (a bad setting, checkpoint or move: ConfigError,
    CheckpointError, GameError) is one line on stderr and exit code 2; a bug stays a
    traceback."""
    try:
        session()
    except (ConfigError, GameError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
