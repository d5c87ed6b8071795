"""Config-group choices on a command line, checked before Hydra sees them.

Hydra answers `game=chess` with several lines about its search path; a user gets one
sentence instead, naming the choices, and exit code 2, like every other bad setting.
"""
from __future__ import annotations

import sys

from alphazero.config.paths import CONF_DIR

GROUPS = ("game", "model", "pool", "recipe")


def check_group_choices(argv: list[str]) -> None:
    """Exit with one sentence if an argument picks a config group option that does not exist."""
    for argument in argv:
        key, _, value = argument.lstrip("+~").partition("=")
        if key not in GROUPS or not value:
            continue
        options = sorted(path.stem for path in (CONF_DIR / key).glob("*.yaml"))
        if value not in options:
            print(f"error: unknown {key} '{value}'; choose one of: {', '.join(options)}.",
                  file=sys.stderr)
            sys.exit(2)
