"""How the commands that need no run folder (play, engine, export, serve) start: their tree
of conf/ composed with the command line's overrides, a note on stderr where a first start
compiles kernels, and a user's mistake told in one sentence on stderr with exit code 2
instead of a traceback.

They compose with Hydra's compose API rather than @hydra.main (alphazero.config.compose, whose
cache spares even Hydra's import): the same overrides, about a second less at every start
on a loaded 2-core machine, and every bad override one sentence. Each takes the settings
every command has, `threads=N` and `device=...` (a command that has no device, export, refuses
it by name like any setting it lacks).
"""
from __future__ import annotations

import sys
from typing import Callable

from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from alphazero.config.choices import check_group_choices, expand_game_choice
from alphazero.config.command_line import flat_keys, no_such_setting
from alphazero.config.compose import compose_config
from alphazero.config.errors import ConfigError
from games.core.compile_note import tell_first_compilation


def command_config(config_name: str, argv: list[str]) -> DictConfig:
    """conf/<config_name>.yaml with the command line's overrides, or a ConfigError. From
    here on a first start's Numba compilation says so on stderr."""
    tell_first_compilation()
    argv = expand_game_choice(argv)
    check_group_choices(argv)
    try:
        return compose_config(config_name, argv)
    except Exception as error:
        from hydra.errors import ConfigCompositionException, HydraException  # imported by then
        if not isinstance(error, (HydraException, OmegaConfBaseException)):
            raise
        if isinstance(error, ConfigCompositionException) and "not in struct" in str(error.__cause__):
            key = getattr(error.__cause__, "full_key", None) or str(error).split("'")[1]
            known = flat_keys(compose_config(config_name, []))
            raise ConfigError(no_such_setting(config_name, key, known)) from None
        raise ConfigError(f"bad setting: {str(error).splitlines()[0]}") from None


def run_or_exit(session: Callable[[], None]) -> None:
    """Run a command; a user's mistake is one line on stderr and exit code 2, not a traceback."""
    try:
        session()
    except ValueError as error:  # ConfigError, GameError and CheckpointError are ValueErrors
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
