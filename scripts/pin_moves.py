"""Record the moves every shipped network's default agent plays at fixed positions and seeds,
which tests/test_pinned_moves.py then checks:

    python scripts/pin_moves.py tests/data/pinned_moves.json [KEY ...]

Positions: the empty board and a few random openings (3, 6 and 11 plies; for Othello also 46,
where the exact endgame moves), each kept only where the most visited move leads the next by
at least 5% of the visits or an advisor decides the move, so a pinned move does not hang on
the last bits of a float. A network shipped later writes only its game's pins (KEY) into the
file, in its own commit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from alphazero.agent.build import build_agent
from alphazero.config.presets import compose_play
from alphazero.config.settings import build_game
from alphazero.config.threads import use_search_threads

KEYS = ["connect4", "connect4_classic", "connect6", "gomoku", "gomoku8", "othello", "othello_standard"]
PLIES = {"othello": [0, 3, 6, 11, 46], "othello_standard": [0, 3, 6, 11, 46]}
MARGIN = 0.05


def random_line(game, rng, plies: int) -> tuple[np.ndarray, list[str]] | None:
    state, moves = game.new_state(np.random.default_rng(0)), []
    for _ in range(plies):
        action = int(rng.choice(game.legal_list(state)))
        moves.append(game.format_move(state, action))
        game.play(state, action)
        if game.status(state) != 0:
            return None
    return state, moves


def pins(key: str) -> list[dict]:
    cfg = compose_play([f"game={key}", "seed=0", "threads=1", "selfplay.precision=float32"])
    game = build_game(cfg)
    agent = build_agent(game, cfg, "az", seed=0)
    rng, found = np.random.default_rng(12345), []
    for plies in PLIES.get(key, [0, 3, 6, 11]):
        for _ in range(20):
            line = random_line(game, rng, plies)
            if line is None:
                continue
            state, moves = line
            thought = agent.think(state, agent.simulations)
            advice = agent.advice(state)
            top = np.sort(thought.visits)[::-1]
            margin = float(top[0] - top[1]) / max(float(top.sum()), 1.0)
            if margin >= MARGIN or (advice is not None and advice.decided):
                found.append({"moves": moves, "move": game.format_move(state, thought.action),
                              "margin": round(margin, 3), "value": round(thought.value, 3)})
                break
    return found


if __name__ == "__main__":
    use_search_threads(1)
    path, keys = Path(sys.argv[1]), sys.argv[2:]
    pinned = json.loads(path.read_text()) if keys else {}
    pinned.update({key: pins(key) for key in keys or KEYS})
    path.write_text(json.dumps(pinned, indent=1))
