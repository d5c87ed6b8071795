"""Self-play pools: start and stop workers, ship weights, collect finished games.

`InlinePool` plays in the training process (workers=0: simplest, deterministic, for tests
and tiny machines). `LocalPool` runs W worker processes beside the trainer; a worker that
dies is restarted with the latest weights and the run goes on. Both have the same interface,
so the training loop does not know which one it drives.
"""
from __future__ import annotations

import io
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import queue
import threading
import time
from dataclasses import dataclass

import torch

from alphazero.mcts import SearchConfig
from alphazero.network import Inference, build_model, select_device
from alphazero.selfplay import GameRecord, SelfPlayConfig, SelfPlayWorker
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


def weights_to_bytes(state_dict: dict) -> bytes:
    buffer = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state_dict.items()}, buffer)
    return buffer.getvalue()


def weights_from_bytes(blob: bytes) -> dict:
    return torch.load(io.BytesIO(blob), weights_only=True)


def build_worker(spec: WorkerSpec, weights: bytes) -> tuple[SelfPlayWorker, Inference]:
    game = make_game(spec.game_name, **spec.game_params)
    device = select_device(spec.device)
    model = build_model(spec.model_kind, game, **spec.model_sizes).to(device)
    inference = Inference(model, device, spec.precision)
    inference.load_state_dict(weights_from_bytes(weights))
    return SelfPlayWorker(game, inference, spec.selfplay, spec.search, seed=spec.seed), inference


class InlinePool:
    """Self-play in the calling process."""

    def __init__(self, spec: WorkerSpec):
        self.spec = spec
        self.worker = None
        self.inference = None
        self.restarts = 0

    @property
    def workers_alive(self) -> int:
        return 1

    def start(self, weights: bytes) -> None:
        self.worker, self.inference = build_worker(self.spec, weights)

    def publish(self, weights: bytes) -> None:
        self.inference.load_state_dict(weights_from_bytes(weights))

    def collect(self, min_positions: int) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
            for record in self.worker.play_move():
                games.append(record)
                positions += record.length
        return games

    def stop(self) -> None:
        self.worker = None


def _send_forever(outbox: queue.SimpleQueue, games_out) -> None:
    while True:
        games_out.send(outbox.get())


def _worker_main(spec: WorkerSpec, weights_queue, games_out, stop_event) -> None:
    torch.set_num_threads(1)  # one core per worker; the pool supplies the parallelism
    worker, inference = build_worker(spec, weights_queue.get())
    # A game is larger than a pipe's buffer: send from a thread, so that self-play goes on
    # while the trainer is busy and not reading.
    outbox = queue.SimpleQueue()
    threading.Thread(target=_send_forever, args=(outbox, games_out), daemon=True).start()
    while not stop_event.is_set():
        latest = None
        try:
            while True:
                latest = weights_queue.get_nowait()
        except queue.Empty:
            pass
        if latest is not None:
            inference.load_state_dict(weights_from_bytes(latest))
        for record in worker.play_move():
            outbox.put(record)


class WorkerCrashLoop(RuntimeError):
    """A worker died again and again without delivering a game: restarting will not help."""


class LocalPool:
    """W self-play processes on this machine.

    Each worker has its own pipe for games and its own queue for weights: a worker killed
    while writing can then only break its own channel (a shared queue's lock would be lost
    with it and block every other writer), and its replacement starts on fresh ones.
    """

    MAX_RESTARTS_WITHOUT_GAMES = 3

    def __init__(self, spec: WorkerSpec, workers: int):
        self.spec = spec
        self.num_workers = workers
        self.context = mp.get_context("spawn")  # safe with torch and numba threads
        self.stop_event = self.context.Event()
        self.processes: list = [None] * workers
        self.weight_queues: list = [None] * workers
        self.game_pipes: list = [None] * workers
        self.failures = [0] * workers  # restarts since the worker last delivered a game
        self.latest_weights = b""
        self.restarts = 0

    @property
    def workers_alive(self) -> int:
        return sum(p is not None and p.is_alive() for p in self.processes)

    def _launch(self, i: int) -> None:
        spec = WorkerSpec(**{**self.spec.__dict__, "seed": self.spec.seed * 1000 + i + 1000 * self.restarts})
        self.weight_queues[i] = self.context.Queue()
        self.weight_queues[i].put(self.latest_weights)
        reader, writer = self.context.Pipe(duplex=False)
        process = self.context.Process(target=_worker_main, daemon=True,
                                       args=(spec, self.weight_queues[i], writer, self.stop_event))
        process.start()
        writer.close()  # the worker holds the only writer, so its death reads as EOF here
        self.game_pipes[i] = reader
        self.processes[i] = process

    def _restart(self, i: int) -> None:
        self.processes[i].join(timeout=1.0)
        self.failures[i] += 1
        if self.failures[i] > self.MAX_RESTARTS_WITHOUT_GAMES:
            raise WorkerCrashLoop(f"self-play worker {i} died {self.failures[i]} times in a row "
                                  f"without finishing a game (exit code {self.processes[i].exitcode}).")
        self.weight_queues[i].cancel_join_thread()
        self.game_pipes[i].close()
        self.restarts += 1
        self._launch(i)

    def start(self, weights: bytes) -> None:
        self.latest_weights = weights
        for i in range(self.num_workers):
            self._launch(i)

    def publish(self, weights: bytes) -> None:
        self.latest_weights = weights
        for q in self.weight_queues:
            q.put(weights)

    def collect(self, min_positions: int) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
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
                self.failures[i] = 0
                games.append(record)
                positions += record.length
        return games

    def stop(self) -> None:
        self.stop_event.set()
        for weights in self.weight_queues:
            # Weights a stopped worker never read would keep the queue's feeder thread,
            # and so this process, waiting at exit.
            if weights is not None:
                weights.cancel_join_thread()
        deadline = time.time() + 5
        for process in self.processes:
            if process is not None:
                process.join(timeout=max(0.0, deadline - time.time()))
                if process.is_alive():
                    process.terminate()
