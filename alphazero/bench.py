"""Benchmarks: `python -m alphazero.bench KIND game=NAME [key=value ...] [--json]`.

KIND is one of
  search    batched PUCT with a free evaluator, per tree count (search and encoding alone)
  pure      pure-MCTS iterations/s next to the game core's random playouts/s, same process
  network   the 6-layer net's positions/s at batch 1, 64, 256 for each precision
  selfplay  one self-play worker at the default settings, next to the bare network's
            positions/s at the same batch and precision, measured in the same process
  train     trainer samples/s at the default batch size
Keys other than the bench's own (trees, simulations, iterations, seconds, batch, threads)
are game parameters, e.g. `size=19`. Rows print as a table, or with --json as one JSON
object each. `threads` sets torch's thread count (default: torch's own choice).
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

import torch

from alphazero.mcts import BatchedSearch, SearchConfig
from alphazero.network import Inference, build_model, measure_inference
from alphazero.pure_mcts import PureMCTS
from alphazero.selfplay import SelfPlayConfig, SelfPlayWorker
from alphazero.trainer import Trainer, measure_training
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
    playouts per second measured in the same process. The two are timed in alternating
    slices so that a shared machine's drift (often 30% within seconds) hits both alike."""
    iterations = int(options.get("iterations", 20000))
    seconds = float(options.get("seconds", 2.0))
    state = game.new_state(np.random.default_rng(0))
    player = PureMCTS(game, iterations)
    kernels, rng, outcomes = compiled(game), make_rng(1), np.zeros(4, dtype=np.int64)
    steps = [lambda: (player.search(state), iterations)[1],
             lambda: (kernels.run_playouts(state, rng, 2000, outcomes), 2000)[1]]
    work, elapsed = np.zeros(2), np.zeros(2)
    slices = 10
    for _ in range(slices):
        for k, step in enumerate(steps):
            done, took = _timed(step, seconds / slices)
            work[k] += done
            elapsed[k] += took
    iters_per_s, playouts_per_s = work / elapsed
    return [{"game": game.name, "params": game.params(), "iterations": iterations,
             "iters_per_s": round(iters_per_s), "playouts_per_s": round(playouts_per_s),
             "ratio": round(iters_per_s / playouts_per_s, 3)}]


def _precisions() -> list[str]:
    return ["float32", "bfloat16"] + (["float16"] if torch.cuda.is_available() else [])


def _device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def bench_network(game, options: dict) -> list[dict]:
    seconds = float(options.get("seconds", 2.0))
    model = build_model("cnn", game).to(_device())
    rows = []
    for precision in _precisions():
        for batch in options.get("batch", [1, 64, 256]):
            rate = measure_inference(model, game, batch, precision, seconds)
            rows.append({"game": game.name, "params": game.params(), "device": _device().type,
                         "threads": torch.get_num_threads(), "batch": batch,
                         "precision": precision, "positions_per_s": round(rate)})
    return rows


def bench_selfplay(game, options: dict) -> list[dict]:
    """Self-play at the default settings. `network_positions_per_s` is the bare network at
    the same batch (games in parallel) and precision: the ceiling self-play can approach.
    `share=` and `fast=` turn on playout cap randomisation (selfplay.full_search_share and
    selfplay.fast_simulations)."""
    seconds = float(options.get("seconds", 10.0))
    config = SelfPlayConfig()
    config.simulations = int(options.get("simulations", config.simulations))
    config.games_in_parallel = int(options.get("trees", config.games_in_parallel))
    config.full_search_share = float(options.get("share", config.full_search_share))
    config.fast_simulations = int(options.get("fast", config.fast_simulations))
    model = build_model("cnn", game).to(_device())
    inference = Inference(model, _device(), "auto")
    evaluated = [0]

    def counting(planes, legal):
        evaluated[0] += len(planes)
        return inference(planes, legal)

    worker = SelfPlayWorker(game, counting, config, SearchConfig())
    moves, elapsed = _timed(lambda: (worker.play_move(), config.games_in_parallel)[1], seconds)
    sims = evaluated[0] * (moves / (moves + config.games_in_parallel))  # less the warm-up move
    state = game.new_state(np.random.default_rng(0))
    plies = compiled(game).run_playouts(state, make_rng(0), 200, np.zeros(4, dtype=np.int64)) / 200
    network = measure_inference(model, game, config.games_in_parallel, inference.precision, 2.0)
    return [{"game": game.name, "params": game.params(), "device": _device().type,
             "threads": torch.get_num_threads(), "simulations": config.simulations,
             "full_search_share": config.full_search_share,
             "games_in_parallel": config.games_in_parallel, "precision": inference.precision,
             "sims_per_s": round(sims / elapsed), "moves_per_s": round(moves / elapsed, 1),
             "games_per_hour": round(3600 * moves / elapsed / plies),
             "network_positions_per_s": round(network),
             "share_of_network": round(sims / elapsed / network, 3)}]


def bench_train(game, options: dict) -> list[dict]:
    seconds = float(options.get("seconds", 3.0))
    rows = []
    for batch in options.get("batch", [256]):
        trainer = Trainer(build_model("cnn", game).to(_device()), device=_device())
        rows.append({"game": game.name, "params": game.params(), "device": _device().type,
                     "threads": torch.get_num_threads(), "batch": batch,
                     "samples_per_s": round(measure_training(trainer, game, batch, seconds))})
    return rows


BENCHES = {"search": bench_search, "pure": bench_pure, "network": bench_network,
           "selfplay": bench_selfplay, "train": bench_train}
BENCH_KEYS = {"trees", "simulations", "iterations", "seconds", "batch", "threads", "share", "fast"}


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
        for key in ("trees", "batch"):
            if isinstance(options.get(key), int) and words[0] != "selfplay":
                options[key] = [options[key]]
        if "threads" in options:
            torch.set_num_threads(int(options["threads"]))
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
