"""Command-line helpers shared by the game and pipeline commands."""
from __future__ import annotations

import yaml

from games.core.base import GameError


def parse_overrides(words: list[str]) -> dict:
    """Hydra-style key=value words; values are read as YAML (numbers, [lists], null)."""
    params = {}
    for word in words:
        key, sep, text = word.partition("=")
        if not sep or not key:
            raise GameError(f"expected key=value, got '{word}'.")
        try:
            params[key] = yaml.safe_load(text) if text else ""
        except yaml.YAMLError:
            raise GameError(f"cannot read the value of {key}: '{text}'.") from None
    return params
