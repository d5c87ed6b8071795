"""Seconds per move of a network at its playing budget, searched as `play` and the engine
search: one position at a time (batch 1), the torch threads `play` uses.

    python scripts/move_time.py game=othello [games=2] [mcts.simulations=N] [checkpoint=PATH]
                              [--torch] [--keep-subnormals]

The network plays itself from random 2-ply openings (one per game), timing every move (Othello's
last moves are the endgame solver's: `solved_moves` counts them); compiling and warming up
are not counted. `--torch` runs the network through
torch instead of ONNX Runtime (alphazero/nn/onnx_runtime.py), and `--keep-subnormals` turns
off the flushing of subnormal floats to zero (alphazero/nn/denormals.py; ONNX Runtime still
flushes the thread that makes its first session): both time the code as it ran before. Prints one JSON line.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

import numpy as np

from alphazero.nn import network, onnx_session
from alphazero.config.settings import build_game
from alphazero.search.openings import random_opening
from alphazero.agent.build import build
from alphazero.agent.spec import agent_spec
from alphazero.config.presets import compose_play
from alphazero.config.threads import use_search_threads
from games import ONGOING


def decided(player, state) -> bool:
    """Whether an advisor decides the move without a search (Othello's exact endgame)."""
    advice = player.advice(state)
    return advice is not None and advice.decided


def warm_up(game, player, rng) -> None:
    """Compile the search, and the endgame solver where the player has one, untimed."""
    state = game.new_state(rng)
    player.best_actions(state[None])
    solver = any(advisor.name == "exact_endgame" for advisor in player.advisors)
    while solver and not decided(player, state):
        if game.status(state) != ONGOING:
            state = game.new_state(rng)
        game.play(state, int(rng.choice(game.legal_list(state))))
    player.best_actions(state[None])


def move_times(overrides: list[str], games: int, through_torch: bool = False) -> dict:
    cfg = compose_play(overrides)
    threads = use_search_threads(cfg.threads)
    game = build_game(cfg)
    spec = agent_spec(cfg, "az")
    player = build(game, replace(spec, runtime="torch") if through_torch else spec)
    rng = np.random.default_rng(cfg.seed)
    warm_up(game, player, rng)
    times, solved = [], 0
    for _ in range(games):
        state = random_opening(game, game.new_state(rng), 2, rng)
        while game.status(state) == ONGOING:
            solved += decided(player, state)
            began = time.perf_counter()
            action = int(player.best_actions(state[None])[0])
            times.append(time.perf_counter() - began)
            game.play(state, action)
    return {"game": game.name, "params": game.params(), "simulations": cfg.mcts.simulations,
            "threads": threads, "runtime": player.inference.runtime, "moves": len(times),
            "solved_moves": solved,
            "mean_s": round(float(np.mean(times)), 3),
            "median_s": round(float(np.median(times)), 3), "max_s": round(float(np.max(times)), 3)}


if __name__ == "__main__":
    args = sys.argv[1:]
    through_torch = "--torch" in args
    if through_torch:
        args.remove("--torch")
    if "--keep-subnormals" in args:
        args.remove("--keep-subnormals")
        network.flush_denormals = onnx_session.flush_denormals = lambda: None
    count = int(next((a.split("=", 1)[1] for a in args if a.startswith("games=")), 2))
    print(json.dumps(move_times([a for a in args if not a.startswith("games=")], count,
                                through_torch)))
