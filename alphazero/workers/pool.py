"""Self-play pools: start and stop workers, ship weights, collect finished games.

`InlinePool` plays in the training process (workers=0: simplest, deterministic, for tests
and tiny machines). `LocalPool` runs W worker processes beside the trainer; a worker that
dies is restarted with the latest weights and the run goes on; one signalled (Ctrl-C or
SIGTERM to the whole run) stops the pool instead (alphazero.workers.signals). Both have the
same interface, so the training loop does not know which one it drives. Weights travel with
their version (the loop's count of training rounds), and each pool stamps a finished game
with the version that played its last move (`GameRecord.network`).

Memory stays bounded when self-play outruns training: each worker may have at most its share
of `max_games_in_flight` finished games sent and not yet read by the trainer; at that bound
it stops playing until the trainer reads one (workers wait; no game is dropped, so the sample
ratio is what the config says).

On a GPU the workers share one inference service (alphazero.workers.inference_service): they search
on their cores and the service evaluates all their waiting batches in one call. On a CPU each
worker evaluates its own batches with one torch thread (no copies between processes);
`shared_inference=True` runs the service path there too (tests, benchmarks).
"""
from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection as mp_connection
import queue
import threading
import time
from dataclasses import dataclass

import torch

from alphazero.workers.inference_service import (
    RemoteEvaluator,
    SharedBlock,
    newest_weights,
    service_main,
)
from alphazero.workers.signals import stop_pool_on_signals
from alphazero.search.puct import SearchConfig
from alphazero.config.devices import select_device
from alphazero.config.errors import ConfigError
from alphazero.nn.checkpoint import weights_from_bytes
from alphazero.nn.network import Inference, build_inference
from alphazero.workers.selfplay import GameRecord, SelfPlayConfig, SelfPlayWorker
from games import make_game


@dataclass
class WorkerSpec:
    """Everything a worker process needs to rebuild its game, network and search."""
    game_name: str
    game_params: dict
    model_kind: str
    model_sizes: dict
    device: str
    precision: str
    selfplay: SelfPlayConfig
    search: SearchConfig
    seed: int


def build_worker(spec: WorkerSpec, weights: bytes) -> tuple[SelfPlayWorker, Inference]:
    game = make_game(spec.game_name, **spec.game_params)
    device = select_device(spec.device)
    inference = build_inference(spec.model_kind, game, spec.model_sizes, device, spec.precision,
                                weights_from_bytes(weights))
    return SelfPlayWorker(game, inference, spec.selfplay, spec.search, seed=spec.seed), inference


class InlinePool:
    """Self-play in the calling process."""

    def __init__(self, spec: WorkerSpec):
        self.spec = spec
        self.worker = None
        self.inference = None
        self.version = 0
        self.restarts = 0

    @property
    def workers_alive(self) -> int:
        return 1

    def start(self, weights: bytes, version: int = 0) -> None:
        self.worker, self.inference = build_worker(self.spec, weights)
        self.version = version

    def publish(self, weights: bytes, version: int) -> None:
        self.inference.load_state_dict(weights_from_bytes(weights))
        self.version = version

    def collect(self, min_positions: int, stop: threading.Event | None = None) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
            raise_if_trainer_stopping(stop)
            for record in self.worker.play_move():
                record.network = self.version
                games.append(record)
                positions += record.length
        return games

    def stop(self) -> None:
        self.worker = None


def _send_forever(outbox: queue.SimpleQueue, games_out) -> None:
    while True:
        games_out.send(outbox.get())


def _worker_main(spec: WorkerSpec, weights_queue, games_out, permits, stop_event,
                 service=None) -> None:
    """Play and send games. `permits` holds this worker's share of the games in flight: one
    is taken per game sent and given back by the trainer when it reads the game. `service`,
    when given, is (shared block, pipe, first request number) of the inference service.
    `weights_queue` carries (version, weights)."""
    stop_pool_on_signals(stop_event)
    torch.set_num_threads(1)  # one core per worker; the pool supplies the parallelism
    if service is None:
        version, weights = weights_queue.get()
        worker, inference = build_worker(spec, weights)
    else:
        game = make_game(spec.game_name, **spec.game_params)
        evaluator = RemoteEvaluator(*service)
        worker, inference = SelfPlayWorker(game, evaluator, spec.selfplay, spec.search,
                                           seed=spec.seed), None
    # A game is larger than a pipe's buffer: send from a thread, so that self-play goes on
    # while the trainer is busy and not reading.
    outbox = queue.SimpleQueue()
    threading.Thread(target=_send_forever, args=(outbox, games_out), daemon=True).start()
    while not stop_event.is_set():
        latest = newest_weights(weights_queue)
        if latest is not None and inference is not None:
            version, weights = latest
            inference.load_state_dict(weights_from_bytes(weights))
        finished = worker.play_move()
        if inference is None:
            version = evaluator.version  # of the weights in the service's last answer
        for record in finished:
            record.network = version
            while not permits.acquire(timeout=0.5):  # the trainer is behind: wait for it
                if stop_event.is_set():
                    return
            outbox.put(record)


class WorkerCrashLoop(RuntimeError):
    """A worker died again and again without delivering a game: restarting will not help."""


class SelfPlayStopped(Exception):
    """A worker, the inference service or the trainer was signalled
    (alphazero.workers.signals): the trainer saves a checkpoint and stops."""


def raise_if_trainer_stopping(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise SelfPlayStopped("the trainer was signalled to stop")


class LocalPool:
    """W self-play processes on this machine.

    Each worker has its own pipe for games and its own queue for weights: a worker killed
    while writing can then only break its own channel (a shared queue's lock would be lost
    with it and block every other writer), and its replacement starts on fresh ones.
    """

    MAX_RESTARTS_WITHOUT_GAMES = 3

    def __init__(self, spec: WorkerSpec, workers: int, max_games_in_flight: int,
                 shared_inference: bool | None = None):
        if max_games_in_flight < workers:
            raise ConfigError(f"pool.max_games_in_flight must be at least the number of workers "
                              f"({workers}), not {max_games_in_flight}.")
        self.spec = spec
        self.num_workers = workers
        self.games_per_worker = max_games_in_flight // workers
        self.context = mp.get_context("spawn")  # safe with torch and numba threads
        self.stop_event = self.context.Event()
        self.processes: list = [None] * workers
        self.weight_queues: list = [None] * workers
        self.game_pipes: list = [None] * workers
        self.permits: list = [None] * workers
        self.failures = [0] * workers  # restarts since the worker last delivered a game
        self.latest_weights = (0, b"")  # (version, weights)
        self.restarts = 0
        if shared_inference is None:
            shared_inference = select_device(spec.device).type == "cuda"
        self.service = _Service(self.context, spec, workers) if shared_inference else None

    @property
    def workers_alive(self) -> int:
        return sum(p is not None and p.is_alive() for p in self.processes)

    def _launch(self, i: int) -> None:
        spec = WorkerSpec(**{**self.spec.__dict__, "seed": self.spec.seed * 1000 + i + 1000 * self.restarts})
        self.weight_queues[i] = self.context.Queue()
        if self.service is None:  # else the service holds the weights
            self.weight_queues[i].put(self.latest_weights)
        # A fresh count: the permits of a dead worker's unread games die with its pipe.
        self.permits[i] = self.context.Semaphore(self.games_per_worker)
        reader, writer = self.context.Pipe(duplex=False)
        service = None if self.service is None else self.service.channel(i, self.restarts)
        process = self.context.Process(target=_worker_main, daemon=True,
                                       args=(spec, self.weight_queues[i], writer, self.permits[i],
                                             self.stop_event, service))
        process.start()
        writer.close()  # the worker holds the only writer, so its death reads as EOF here
        self.game_pipes[i] = reader
        self.processes[i] = process

    def _restart(self, i: int) -> None:
        self._raise_if_stopped()
        self.processes[i].join(timeout=1.0)
        self.failures[i] += 1
        if self.failures[i] > self.MAX_RESTARTS_WITHOUT_GAMES:
            raise WorkerCrashLoop(f"self-play worker {i} died {self.failures[i]} times in a row "
                                  f"without finishing a game (exit code {self.processes[i].exitcode}).")
        self.weight_queues[i].cancel_join_thread()
        self.game_pipes[i].close()
        self.restarts += 1
        self._launch(i)

    def _raise_if_stopped(self) -> None:
        if self.stop_event.is_set():
            raise SelfPlayStopped("a self-play process was signalled to stop")

    def start(self, weights: bytes, version: int = 0) -> None:
        self.latest_weights = (version, weights)
        if self.service is not None:
            self.service.start(self.latest_weights, self.stop_event)
        for i in range(self.num_workers):
            self._launch(i)

    def publish(self, weights: bytes, version: int) -> None:
        self.latest_weights = (version, weights)
        if self.service is not None:
            self.service.weights.put(self.latest_weights)
            return
        for q in self.weight_queues:
            q.put(self.latest_weights)

    def collect(self, min_positions: int, stop: threading.Event | None = None) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
            self._raise_if_stopped()
            raise_if_trainer_stopping(stop)
            if self.service is not None:
                self.service.check()
            ready = mp_connection.wait(self.game_pipes, timeout=1.0)
            for i, pipe in enumerate(self.game_pipes):
                if pipe not in ready:
                    if not self.processes[i].is_alive():
                        self._restart(i)
                    continue
                try:
                    record = pipe.recv()
                except (EOFError, OSError):
                    self._restart(i)
                    continue
                self.permits[i].release()
                self.failures[i] = 0
                games.append(record)
                positions += record.length
        return games

    def stop(self) -> None:
        self.stop_event.set()
        queues = self.weight_queues + ([self.service.weights] if self.service else [])
        for weights in queues:
            # Weights a stopped worker never read would keep the queue's feeder thread,
            # and so this process, waiting at exit.
            if weights is not None:
                weights.cancel_join_thread()
        deadline = time.time() + 5
        for process in self.processes + ([self.service.process] if self.service else []):
            if process is not None:
                process.join(timeout=max(0.0, deadline - time.time()))
                if process.is_alive():  # e.g. a worker waiting for a stopped service's answer
                    process.kill()
                    process.join(timeout=1.0)


class InferenceServiceDied(WorkerCrashLoop):
    """The shared inference service stopped: every worker waits on it, so the run cannot go on."""


class _Service:
    """The pool's side of the inference service: its process, weights queue, one shared block
    and pipe per worker slot (kept across restarts), and counters of positions and calls."""

    def __init__(self, context, spec: WorkerSpec, workers: int):
        game = make_game(spec.game_name, **spec.game_params)
        rows = spec.selfplay.games_in_parallel  # a leaf per game and search step
        self.context, self.spec = context, spec
        self.blocks = [SharedBlock(context, rows, (game.planes, game.height, game.width),
                                   game.num_actions) for _ in range(workers)]
        pipes = [context.Pipe() for _ in range(workers)]
        self.service_ends = [a for a, _ in pipes]
        self.worker_ends = [b for _, b in pipes]
        self.weights = context.Queue()
        self.counters = context.Array("q", 4)  # positions, calls, ns in them, ns waiting
        self.process = None

    def start(self, weights: tuple[int, bytes], stop_event) -> None:
        self.weights.put(weights)
        self.process = self.context.Process(
            target=service_main, daemon=True,
            args=(self.spec, self.weights, self.blocks, self.service_ends, self.counters, stop_event))
        self.process.start()

    def channel(self, i: int, restarts: int) -> tuple:
        """What worker slot i needs: its block, its pipe and request numbers of its own."""
        return self.blocks[i], self.worker_ends[i], restarts << 40

    def check(self) -> None:
        if not self.process.is_alive():
            raise InferenceServiceDied(f"the inference service died (exit code "
                                       f"{self.process.exitcode}); self-play cannot go on.")
