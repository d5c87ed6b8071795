"""Benchmarks: `python -m alphazero.bench KIND game=NAME [key=value ...] [--json]`.

KIND is one of
  search    batched PUCT with a free evaluator, per tree count (search and encoding alone)
  pure      pure-MCTS iterations/s next to the game core's random playouts/s, same process
  network   the 6-layer net's positions/s at batch 1, 64, 256 on every path the device
            runs (a CPU: float32 through torch and ONNX Runtime, bfloat16 through torch and,
            with bfloat16 units, OpenVINO, int8 through ONNX Runtime on x86), and the path
            `precision=auto` chooses (for this untrained net)
  selfplay  self-play at the default settings (precision=auto, or precision=float32 ...),
            next to the bare network's positions/s at the same batch and precision, measured
            in the same process; workers=N runs N processes on one shared inference service
            (the default on a GPU)
  train     trainer samples/s at the default batch size, in float32 and in the precision
            train.precision=auto chooses (bfloat16 autocast on a CPU with bfloat16 units)
  engines   GTP engines' seconds per move alone and side by side, and the ratio
            (engines=2, moves=6; alphazero/bench/engines.py)
NAME is what `game=NAME` names on every command: a game's config (conf/game/, such as
connect4_classic) or a registered game. Keys other than the bench's own (trees, simulations,
iterations, seconds, batch, threads, device, workers, share, fast, moves, engines) are game
parameters on top of it, e.g. `size=19`. Rows print as a table, or with --json as one JSON
object each. `threads` sets torch's thread count (auto: one; default: torch's own choice),
`device` where the networks run (auto, the default: CUDA when present; cpu; cuda:N), as on
every command; `precision` self-play's network precision (auto, float32, bfloat16).
"""
from __future__ import annotations

import json
import os
import dataclasses
import sys
import time

import numpy as np
import torch

from alphazero.bench.engines import bench_engines
from alphazero.search.puct import BatchedSearch, SearchConfig
from alphazero.nn.network import (Inference, build_model, calibration_for, measure_inference,
                                  resolve_precision, resolve_runtime)
from alphazero.nn.precision import candidate_paths
from alphazero.nn.checkpoint import weights_to_bytes
from alphazero.workers.pool import LocalPool, WorkerSpec
from alphazero.search.pure_mcts import PureMCTS
from alphazero.config.command_line import HELP_FLAGS, USAGES, no_such_setting
from alphazero.config.devices import device_name, select_device
from alphazero.config.errors import ConfigError
from alphazero.config.settings import default_config, validate_threads
from alphazero.config.threads import use_search_threads
from alphazero.workers.selfplay import SelfPlayConfig, SelfPlayWorker
from alphazero.train.trainer import Trainer, measure_training, training_precision
from alphazero.config.presets import named_game
from games import GameError
from games.core.cli import parse_overrides
from games.core.perft import compiled
from games.core.rng import make_rng


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
        search = BatchedSearch(game, trees, simulations,
                               SearchConfig.from_cfg(default_config().mcts, arena_factor=1.0))
        priors = np.ones((trees, game.num_actions), np.float32)
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


def _network_paths(device: torch.device) -> list[tuple[str, str]]:
    """(precision, runtime) pairs `device` can run: on a CPU float32 both through torch
    and through ONNX Runtime, bfloat16 through torch and (with bfloat16 units and OpenVINO)
    through OpenVINO, int8 (on x86) through ONNX Runtime; on CUDA torch at each precision."""
    if device.type == "cuda":
        return [("float32", "torch"), ("bfloat16", "torch"), ("float16", "torch")]
    paths = [("float32", "torch"), ("float32", "onnxruntime"), ("bfloat16", "torch")]
    return paths + [path for path in candidate_paths() if path not in paths]


def _device(options: dict) -> torch.device:
    return select_device(str(options.get("device", "auto")))


def bench_network(game, options: dict) -> list[dict]:
    """Every path's positions/s, side by side (drift hits all), and `auto`'s choice marked."""
    seconds = float(options.get("seconds", 2.0))
    model = build_model("cnn", game).to(_device(options))
    rows = []
    for batch in options.get("batch", [1, 64, 256]):
        chosen, _ = resolve_precision("auto", model, game, _device(options), batch)
        auto = (chosen, resolve_runtime("auto", _device(options), chosen))
        for precision, runtime in _network_paths(_device(options)):
            rate = measure_inference(model, game, batch, precision, seconds, runtime)
            rows.append({"game": game.name, "params": game.params(), "device": _device(options).type,
                         "threads": torch.get_num_threads(), "batch": batch,
                         "precision": precision, "runtime": runtime,
                         "auto": (precision, runtime) == auto,
                         "positions_per_s": round(rate)})
    return rows


def _step_timers(search) -> dict:
    """Time the search's two per-step kernels on this search object (other searches are
    untouched); returns the running totals."""
    totals = {"select_encode_s": 0.0, "expand_backup_s": 0.0}

    def timed(fn, key):
        def call(*args):
            began = time.perf_counter()
            out = fn(*args)
            totals[key] += time.perf_counter() - began
            return out
        return call

    step = search.step_kernels
    search.step_kernels = step._replace(
        select_leaves=timed(step.select_leaves, "select_encode_s"),
        expand_and_backup=timed(step.expand_and_backup, "expand_backup_s"))
    return totals


def _selfplay_config(options: dict) -> SelfPlayConfig:
    config = SelfPlayConfig.from_cfg(default_config())
    return dataclasses.replace(
        config, simulations=int(options.get("simulations", config.simulations)),
        games_in_parallel=int(options.get("trees", config.games_in_parallel)),
        full_search_share=float(options.get("share", config.full_search_share)),
        fast_simulations=int(options.get("fast", config.fast_simulations)))


def bench_selfplay(game, options: dict) -> list[dict]:
    """Self-play at the default settings next to the bare network at the same batch and
    precision, measured in one process. In one process (workers=0, the CPU default) the two
    are timed in alternating slices, so a shared machine's drift hits both alike, and the
    self-play time is split per search step into selection and encoding, the network call,
    expansion and backup, and the Python around them. `sims_per_s` counts every simulation,
    also those ending in a finished game (no network call); `evaluated_per_s` the positions
    the network evaluated. With workers=N (default on a GPU: one
    per core but one) N worker processes share one inference service, as in training, and
    the network is timed at the service's mean batch (there `sims_per_s` counts the
    positions the service evaluated). `share=` and `fast=` turn on playout
    cap randomisation (selfplay.full_search_share and selfplay.fast_simulations)."""
    workers = options.get("workers", "auto")
    if workers == "auto":
        workers = max(1, (os.cpu_count() or 2) - 1) if _device(options).type == "cuda" else 0
    if int(workers) > 0:
        return _bench_selfplay_service(game, options, int(workers))
    seconds = float(options.get("seconds", 10.0))
    config = _selfplay_config(options)
    model = build_model("cnn", game).to(_device(options))
    precision, _ = resolve_precision(str(options.get("precision", "auto")), model, game,
                                     _device(options), config.games_in_parallel)
    inference = Inference(model, _device(options), precision,
                          calibration=calibration_for(precision, game))
    counts = {"positions": 0, "network_s": 0.0, "simulations": 0}

    def counting(planes, legal):
        began = time.perf_counter()
        out = inference(planes, legal)
        counts["network_s"] += time.perf_counter() - began
        counts["positions"] += len(planes)
        return out

    worker = SelfPlayWorker(game, counting, config, SearchConfig.from_cfg(default_config().mcts))
    search_run = worker.search.run

    def counting_run(evaluator, add_noise=False, simulations=None):
        # Every simulation counts, also one that ends in a finished game (no network call).
        counts["simulations"] += int(np.sum(simulations[worker.search.active]))
        return search_run(evaluator, add_noise, simulations)

    worker.search.run = counting_run
    worker.play_move()  # compile and warm up
    steps = _step_timers(worker.search)
    batch = config.games_in_parallel
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (batch, game.planes, game.height, game.width)).astype(np.float32)
    legal = np.ones((batch, game.num_actions), dtype=np.bool_)
    inference(planes, legal)
    counts.update(positions=0, network_s=0.0, simulations=0)
    for key in steps:
        steps[key] = 0.0
    moves, selfplay_s, network_work, network_s = 0, 0.0, 0, 0.0
    slices = max(2, int(seconds // 5))
    for _ in range(slices):
        began = time.perf_counter()
        while time.perf_counter() - began < seconds / slices:
            worker.play_move()
            moves += batch
        selfplay_s += time.perf_counter() - began
        done, took = _timed(lambda: (inference(planes, legal), batch)[1], seconds / slices)
        network_work += done
        network_s += took
    sims_per_s = counts["simulations"] / selfplay_s
    network = network_work / network_s
    state = game.new_state(np.random.default_rng(0))
    plies = compiled(game).run_playouts(state, make_rng(0), 200, np.zeros(4, dtype=np.int64)) / 200
    shares = {"select_encode": steps["select_encode_s"], "network": counts["network_s"],
              "expand_backup": steps["expand_backup_s"]}
    shares["python"] = selfplay_s - sum(shares.values())
    return [{"game": game.name, "params": game.params(), "device": _device(options).type,
             "threads": torch.get_num_threads(), "workers": 0, "simulations": config.simulations,
             "full_search_share": config.full_search_share,
             "games_in_parallel": batch, "precision": inference.precision,
             "runtime": inference.runtime,
             "sims_per_s": round(sims_per_s),
             "evaluated_per_s": round(counts["positions"] / selfplay_s),
             "moves_per_s": round(moves / selfplay_s, 1),
             "games_per_hour": round(3600 * moves / selfplay_s / plies),
             "network_positions_per_s": round(network),
             "share_of_network": round(sims_per_s / network, 3),
             "evaluated_share": round(counts["positions"] / selfplay_s / network, 3),
             "time_shares": {k: round(v / selfplay_s, 3) for k, v in shares.items()}}]


def _bench_selfplay_service(game, options: dict, workers: int) -> list[dict]:
    """W self-play processes on one inference service (the pool of a training run), their
    network positions/s over `seconds`, next to the bare network at the service's mean batch
    timed before and after in this process."""
    seconds = float(options.get("seconds", 20.0))
    torch.set_num_threads(1)  # as the service runs the network (on a CPU)
    config = _selfplay_config(options)
    model = build_model("cnn", game).to(_device(options))
    precision, _ = resolve_precision(str(options.get("precision", "auto")), model, game,
                                     _device(options), config.games_in_parallel)
    spec = WorkerSpec(game_name=game.name, game_params=game.params(), model_kind="cnn",
                      model_sizes={}, device=_device(options).type, precision=precision,
                      selfplay=config, search=SearchConfig.from_cfg(default_config().mcts),
                      seed=0)
    pool = LocalPool(spec, workers, max_games_in_flight=10**9, shared_inference=True)
    pool.start(weights_to_bytes(model.state_dict()))
    counters = pool.service.counters
    try:
        while counters[1] < 3 * workers:  # every worker compiled and searching
            pool.service.check()
            time.sleep(0.5)
        time.sleep(2.0)
        before, began = list(counters), time.perf_counter()
        time.sleep(seconds)
        positions, calls, network_ns, waiting_ns = (a - b for a, b in zip(counters, before))
        elapsed = time.perf_counter() - began
        pool.service.check()
    finally:
        pool.stop()
    batch = max(1, round(positions / max(calls, 1)))
    network = measure_inference(model, game, batch, precision, 3.0)
    return [{"game": game.name, "params": game.params(), "device": _device(options).type,
             "threads": 1, "workers": workers, "simulations": config.simulations,
             "games_in_parallel": config.games_in_parallel, "precision": precision,
             "sims_per_s": round(positions / elapsed), "mean_batch": batch,
             "service_in_network": round(network_ns / 1e9 / elapsed, 3),
             "service_waiting": round(waiting_ns / 1e9 / elapsed, 3),
             "network_positions_per_s": round(network),
             "share_of_network": round(positions / elapsed / network, 3)}]


def bench_train(game, options: dict) -> list[dict]:
    """Samples/s in float32 and in the precision train.precision=auto chooses, each batch
    size side by side."""
    seconds = float(options.get("seconds", 3.0))
    chosen = training_precision("auto", _device(options))
    rows = []
    for batch in options.get("batch", [256]):
        for precision in dict.fromkeys(["float32", chosen]):
            train = default_config().train
            trainer = Trainer(build_model("cnn", game).to(_device(options)), train.lr, train.l2,
                              train.optimizer, device=_device(options), precision=precision)
            rows.append({"game": game.name, "params": game.params(), "device": _device(options).type,
                         "threads": torch.get_num_threads(), "batch": batch,
                         "precision": precision, "auto": precision == chosen,
                         "samples_per_s": round(measure_training(trainer, game, batch, seconds))})
    return rows


BENCHES = {"search": bench_search, "pure": bench_pure, "network": bench_network,
           "selfplay": bench_selfplay, "train": bench_train, "engines": bench_engines}
BENCH_KEYS = {"trees", "simulations", "iterations", "seconds", "batch", "threads", "device",
              "share", "fast", "workers", "moves", "engines", "precision"}


def print_table(rows: list[dict]) -> None:
    columns = list(rows[0])
    cells = [[json.dumps(r[c]) if isinstance(r[c], dict) else str(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def main(argv: list[str]) -> int:
    if any(word in HELP_FLAGS for word in argv):
        usage = USAGES["bench"]
        print(f"usage: {usage.synopsis}\n\n{usage.does}\n\n{__doc__.strip()}\n\n"
              f"the results measured: {usage.reference}")
        return 0
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
        known = BENCH_KEYS | set(named_game(name).params())
        for key in params:
            if key not in known:
                raise ConfigError(no_such_setting("bench", key, sorted(known)))
        options = {k: params.pop(k) for k in list(params) if k in BENCH_KEYS}
        for key in ("trees", "batch"):
            if isinstance(options.get(key), int) and words[0] != "selfplay":
                options[key] = [options[key]]
        if "threads" in options:
            validate_threads(options["threads"])
            use_search_threads(options["threads"])
        device_name(str(options.get("device", "auto")))  # checked, whether or not the bench uses it
        rows = BENCHES[words[0]](named_game(name, **params), options)
    except (GameError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        print_table(rows)
    return 0

