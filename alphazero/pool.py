"""Self-play pools: start and stop workers, ship weights, collect finished games.

`InlinePool` plays in the training process (workers=0: simplest, deterministic, for tests
and tiny machines). `LocalPool` runs W worker processes beside the trainer; a worker that
dies is restarted with the latest weights and the run goes on. Both have the same interface,
so the training loop does not know which one it drives.
"""
from __future__ import annotations

import io
import multiprocessing as mp
import queue
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


def _worker_main(spec: WorkerSpec, weights_queue, results_queue, stop_event) -> None:
    torch.set_num_threads(1)  # one core per worker; the pool supplies the parallelism
    worker, inference = build_worker(spec, weights_queue.get())
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
            results_queue.put(record)


class LocalPool:
    """W self-play processes on this machine."""

    def __init__(self, spec: WorkerSpec, workers: int):
        self.spec = spec
        self.num_workers = workers
        self.context = mp.get_context("spawn")  # safe with torch and numba threads
        self.results = self.context.Queue()
        self.stop_event = self.context.Event()
        self.processes: list = [None] * workers
        self.weight_queues: list = [None] * workers
        self.latest_weights = b""
        self.restarts = 0

    @property
    def workers_alive(self) -> int:
        return sum(p is not None and p.is_alive() for p in self.processes)

    def _launch(self, i: int) -> None:
        spec = WorkerSpec(**{**self.spec.__dict__, "seed": self.spec.seed * 1000 + i + 1000 * self.restarts})
        self.weight_queues[i] = self.context.Queue()
        self.weight_queues[i].put(self.latest_weights)
        process = self.context.Process(target=_worker_main, daemon=True,
                                       args=(spec, self.weight_queues[i], self.results, self.stop_event))
        process.start()
        self.processes[i] = process

    def start(self, weights: bytes) -> None:
        self.latest_weights = weights
        for i in range(self.num_workers):
            self._launch(i)

    def publish(self, weights: bytes) -> None:
        self.latest_weights = weights
        for q in self.weight_queues:
            q.put(weights)

    def _restart_dead(self) -> None:
        for i, process in enumerate(self.processes):
            if not process.is_alive():
                self.restarts += 1
                self._launch(i)

    def collect(self, min_positions: int) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
            try:
                record = self.results.get(timeout=1.0)
            except queue.Empty:
                self._restart_dead()
                continue
            games.append(record)
            positions += record.length
        self._restart_dead()
        return games

    def stop(self) -> None:
        self.stop_event.set()
        deadline = time.time() + 5
        for process in self.processes:
            if process is not None:
                process.join(timeout=max(0.0, deadline - time.time()))
                if process.is_alive():
                    process.terminate()
