"""Every shipped network, as the default agent of its game, plays the moves it played when
they were recorded (tests/data/pinned_moves.json, written by scripts/pin_moves.py): a change
to the layout, the search or the agent that changes a move shows up here. Each position
was kept only where the most visited move led the next by at least 5% of the visits (or
the exact solver moved), so the moves do not hang on the last bits of a float. The agents
run in float32, as they did when the moves were recorded: `auto` picks bfloat16 on a CPU
with bfloat16 units, whose moves may differ where the visits are close."""
import json
from pathlib import Path

import numpy as np
import pytest

from alphazero.config.settings import build_game
from alphazero.agent.build import build_agent
from alphazero.config.presets import compose_play

pytestmark = pytest.mark.integration  # every shipped network at its playing budget

PINNED = json.loads((Path(__file__).parent / "data" / "pinned_moves.json").read_text())


@pytest.mark.parametrize("key", sorted(PINNED))
def test_shipped_network_plays_its_pinned_moves(key):
    cfg = compose_play([f"game={key}", "seed=0", "threads=1", "selfplay.precision=float32"])
    game = build_game(cfg)
    agent = build_agent(game, cfg)
    for position in PINNED[key]:
        state = game.new_state(np.random.default_rng(0))
        for move in position["moves"]:
            game.play(state, game.parse_move(state, move))
        agent.reset()
        action = int(agent.best_actions(state[None])[0])
        assert game.format_move(state, action) == position["move"], position["moves"]
