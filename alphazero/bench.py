"""Benchmarks: `python -m alphazero.bench KIND game=NAME [key=value ...] [--json]`.

KIND is `search` (batched PUCT with a free evaluator, per tree count) or `pure` (pure-MCTS
iterations per second next to the game core's random playouts per second, same process).
Keys other than the bench's own (trees, simulations, iterations, seconds) are game
parameters, e.g. `size=19`. Rows print as a table, or with --json as one JSON object each.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from alphazero.mcts import BatchedSearch, SearchConfig
from alphazero.pure_mcts import PureMCTS
from games import GameError, make_game
from games.cli import parse_overrides
from games.perft import compiled
from games.rng import make_rng


def _timed(step, seconds: float) -> tuple[int, float]:
    """Call step() (which returns a work count) until `seconds` pass; (work, elapsed)."""
    step()  # compile and warm up outside the timing
    work, began = 0, time.perf_counter()
    while True:
        work += step()
        elapsed = time.perf_counter() - began
        if elapsed >= seconds:
            return work, elapsed


def bench_search(game, options: dict) -> list[dict]:
    """Simulations per second of the batched search with a free evaluator (uniform priors,
    zero values, no copies), so the numbers are the search and encoding alone."""
    simulations = int(options.get("simulations", 200))
    seconds = float(options.get("seconds", 2.0))
    rows = []
    for trees in options.get("trees", [1, 64, 512]):
        search = BatchedSearch(game, trees, simulations, SearchConfig(arena_factor=1.0))
        priors = np.ones((trees * search.config.leaves_per_tree, game.num_actions), np.float32)
        values = np.zeros(len(priors), np.float32)
        rng = np.random.default_rng(0)
        starts = [game.new_state(rng) for _ in range(trees)]

        def free(planes, legal):
            return priors[:len(planes)], values[:len(planes)]

        def one_search():
            for b, state in enumerate(starts):
                search.set_root(b, state)
            search.run(free)
            return trees * simulations

        sims, elapsed = _timed(one_search, seconds)
        rows.append({"game": game.name, "params": game.params(), "trees": trees,
                     "simulations": simulations, "sims_per_s": round(sims / elapsed),
                     "us_per_sim": round(1e6 * elapsed / sims, 2)})
    return rows


def bench_pure(game, options: dict) -> list[dict]:
    """Pure-MCTS iterations per second from the start position, and the core's random
    playouts per second measured in the same process."""
    iterations = int(options.get("iterations", 20000))
    seconds = float(options.get("seconds", 2.0))
    state = game.new_state(np.random.default_rng(0))
    player = PureMCTS(game, iterations)
    iters, elapsed = _timed(lambda: (player.search(state), iterations)[1], seconds)
    kernels, rng, outcomes = compiled(game), make_rng(1), np.zeros(4, dtype=np.int64)
    playouts, playout_time = _timed(lambda: (kernels.run_playouts(state, rng, 2000, outcomes), 2000)[1],
                                    seconds)
    iters_per_s, playouts_per_s = iters / elapsed, playouts / playout_time
    return [{"game": game.name, "params": game.params(), "iterations": iterations,
             "iters_per_s": round(iters_per_s), "playouts_per_s": round(playouts_per_s),
             "ratio": round(iters_per_s / playouts_per_s, 3)}]


BENCHES = {"search": bench_search, "pure": bench_pure}
BENCH_KEYS = {"trees", "simulations", "iterations", "seconds"}


def print_table(rows: list[dict]) -> None:
    columns = list(rows[0])
    cells = [[json.dumps(r[c]) if isinstance(r[c], dict) else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    words = [w for w in argv if w != "--json"]
    if not words or words[0] not in BENCHES:
        print(f"usage: python -m alphazero.bench {{{'|'.join(BENCHES)}}} game=NAME "
              "[key=value ...] [--json]", file=sys.stderr)
        return 2
    try:
        params = parse_overrides(words[1:])
        name = params.pop("game", None)
        if name is None:
            raise GameError("say which game to benchmark with game=NAME.")
        options = {k: params.pop(k) for k in list(params) if k in BENCH_KEYS}
        if isinstance(options.get("trees"), int):
            options["trees"] = [options["trees"]]
        rows = BENCHES[words[0]](make_game(name, **params), options)
    except (GameError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
