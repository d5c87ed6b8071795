"""Config-group choices on a command line, checked before Hydra sees them.

Hydra answers `game=chess` with several lines about its search path; a user gets one
sentence instead, naming the choices, and exit code 2, like every other bad setting.
`game=openspiel:SPEC` (one of OpenSpiel's games, games.openspiel) is no file of conf/game/:
it stands for `game=openspiel game.params.game='SPEC'` (`expand_game_choice`). And
`game.advisors.NAME=VALUE` turns on a play-time advisor whether or not the game's recipe
names it (Hydra would want `+` for one it does not): the settings check then says in one
sentence if the game offers no such advisor.
"""
from __future__ import annotations

import sys

from alphazero.config.paths import CONF_DIR

GROUPS = ("game", "model", "pool", "recipe")
OPENSPIEL_PREFIX = "openspiel:"
ADVISORS = "game.advisors."


def expand_game_choice(argv: list[str]) -> list[str]:
    """argv with `game=openspiel:SPEC` written as the config group and parameter it stands
    for, and an advisor's setting as one that adds the advisor or changes it (`++`)."""
    expanded = []
    for argument in argv:
        key, _, value = argument.partition("=")
        if key == "game" and value.startswith(OPENSPIEL_PREFIX):
            spec = value[len(OPENSPIEL_PREFIX):].replace("'", "")
            expanded += ["game=openspiel", f"game.params.game='{spec}'"]
        elif key.lstrip("+").startswith(ADVISORS) and value:
            expanded.append(f"++{key.lstrip('+')}={value}")
        else:
            expanded.append(argument)
    return expanded


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
