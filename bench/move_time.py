"""Seconds per move of a network at its playing budget, searched as `play` and the engine
search: one position at a time (batch 1), the torch threads `play` uses.

    python bench/move_time.py game=othello [games=2] [mcts.simulations=N] [checkpoint=PATH]
                              [--torch [--keep-subnormals]]

The network plays itself from random 2-ply openings (one per game), timing every move; the
first move, which compiles and warms up, is not counted. `--torch` runs the network through
torch instead of ONNX Runtime (alphazero/onnx_runtime.py), and `--keep-subnormals` then
turns off torch's flushing of subnormal floats to zero (alphazero/threads.py): both time
the code as it ran before. Prints one JSON line.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from alphazero import network, threads
from alphazero.config import build_game
from alphazero.openings import random_opening
from alphazero.players import make_player
from alphazero.presets import compose_play
from alphazero.threads import use_search_threads
from games import ONGOING


def move_times(overrides: list[str], games: int) -> dict:
    cfg = compose_play(overrides)
    threads = use_search_threads(cfg.threads)
    game = build_game(cfg)
    player = make_player(game, cfg, "az", cfg.get("checkpoint"), seed=cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    player.best_actions(game.new_state(rng)[None])  # compile and warm up
    times = []
    for _ in range(games):
        state = random_opening(game, game.new_state(rng), 2, rng)
        while game.status(state) == ONGOING:
            began = time.perf_counter()
            action = int(player.best_actions(state[None])[0])
            times.append(time.perf_counter() - began)
            game.play(state, action)
    return {"game": game.name, "params": game.params(), "simulations": cfg.mcts.simulations,
            "threads": threads, "runtime": player.inference.runtime, "moves": len(times),
            "mean_s": round(float(np.mean(times)), 3),
            "median_s": round(float(np.median(times)), 3), "max_s": round(float(np.max(times)), 3)}


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--torch" in args:
        args.remove("--torch")
        network.resolve_runtime = lambda runtime, device, precision: "torch"
    if "--keep-subnormals" in args:
        args.remove("--keep-subnormals")
        threads.flush_denormals = network.flush_denormals = lambda: None
    count = int(next((a.split("=", 1)[1] for a in args if a.startswith("games=")), 2))
    print(json.dumps(move_times([a for a in args if not a.startswith("games=")], count)))
