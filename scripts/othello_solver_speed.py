"""Seconds per position of the Othello endgame solver, by playable empty cells.

    python scripts/othello_solver_speed.py [rules=course] [positions=20] [empties=10,12,14]

Positions come from uniformly random play from the start (seed 0). Each is solved three times,
each with a fresh transposition table: its value alone (`solve`), a best move with its value
(`best_move`, what the agent plays near the end: games/othello/advisors.py), and every legal move's
exact value (`move_values`, what alphazero.evaluate.judges judges with). Prints one JSON line per empty count.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from games import make_game
from games.othello.solver import OthelloSolver


def timed(call, state) -> float:
    """Seconds of one call."""
    began = time.perf_counter()
    call(state)
    return time.perf_counter() - began


def main(args: list[str]) -> None:
    options = dict(a.split("=", 1) for a in args)
    game = make_game("othello", rules=options.get("rules", "course"))
    count = int(options.get("positions", 20))
    rng = np.random.default_rng(0)
    OthelloSolver(game).move_values(game.random_endgame(rng, 6))  # compile
    for empties in (int(e) for e in options.get("empties", "10,12,14").split(",")):
        rows = {"solve": [], "best_move": [], "move_values": []}
        for _ in range(count):
            state = game.random_endgame(rng, empties)
            for name in rows:  # a fresh table each time, allocated outside the timing
                rows[name].append(timed(getattr(OthelloSolver(game), name), state))
        print(json.dumps({"rules": game.rules, "empties": empties, "positions": count} | {
            f"{name}_{stat}_s": round(float(fn(times)), 4) for name, times in rows.items()
            for stat, fn in (("mean", np.mean), ("max", np.max))}))


if __name__ == "__main__":
    main(sys.argv[1:])
