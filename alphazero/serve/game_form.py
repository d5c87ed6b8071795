"""The set-up form's fields for a game's parameters, found by asking the game itself (no
table of games): each of the game's parameters (`params()`) becomes

- a whole number: a select of every value the game accepts, tried from 1 to MAX_TRIED;
- a [lo, hi] range a board is drawn from per game: the same select, led by the range;
- true or false: a checkbox;
- one the game asks for as text (`Game.typed_params`: OpenSpiel's game): a text box, which
  the server checks as the form changes (/api/choices answers a bad value in one sentence);
- anything else (none, random, a rule set's name): a select of those of none, "random" and
  the configured value that the game accepts.

A field with a single choice is not shown: it is part of the game in the list (Othello's
two rule sets are two games there).
"""
from __future__ import annotations

from games import GameError, game_class, make_game

MAX_TRIED = 40
OTHER_VALUES = (None, "random")
WORDS = {None: "none", "random": "random"}
KEY_WORDS = {"cols": "columns", "game": "which game"}


def accepts(game_name: str, params: dict, key: str, value) -> bool:
    try:
        make_game(game_name, **{**params, key: value})
    except GameError:
        return False
    return True


def choice(value) -> dict:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        label = f"{value[0]}–{value[1]}, random"
    elif isinstance(value, (str, type(None))):
        label = WORDS.get(value, str(value))
    else:
        label = str(value)
    return {"value": value, "label": label}


def field(game_name: str, params: dict, key: str) -> dict | None:
    value = params[key]
    label = KEY_WORDS.get(key, key.replace("_", " ")).capitalize()
    if isinstance(value, bool):
        return {"key": key, "label": label, "kind": "check", "value": value}
    if key in game_class(game_name).typed_params:
        return {"key": key, "label": label, "kind": "text", "value": value}
    if isinstance(value, int) or isinstance(value, list) and all(isinstance(v, int) for v in value):
        numbers = [n for n in range(1, MAX_TRIED + 1) if accepts(game_name, params, key, n)]
        values = ([value] if isinstance(value, list) else []) + numbers
    else:
        tried = [value, *(v for v in OTHER_VALUES if v != value)]
        values = [v for v in tried if accepts(game_name, params, key, v)]
    if len(values) < 2:
        return None
    return {"key": key, "label": label, "kind": "select", "value": value,
            "choices": [choice(v) for v in values]}


def form_fields(game_name: str, params: dict) -> list[dict]:
    """The fields of a game configured with `params` (its canonical `params()`)."""
    return [f for f in (field(game_name, params, key) for key in params) if f is not None]
