"""Self-play on a Ray cluster: the same interface as `LocalPool`, with workers as Ray actors.

Each actor is one self-play worker (K games at once) that plays for a short stretch per
call and returns the games that finished in it. A thread in the trainer's process keeps
two calls in flight per actor, so actors never wait for the trainer, even while it trains;
finished games queue up until `collect` takes them. Weights go into the object store once
per `publish`; every call carries a reference to the latest, and an actor fetches them only
when the reference is new (so new weights are in use within two calls, about two seconds,
much less than a round). An actor that dies (its process or its node) is replaced by a
fresh one with the latest weights; only the games in play on it are lost.
"""
from __future__ import annotations

import dataclasses
import math
import os
import queue
import threading
import time

import ray
import torch
from ray.exceptions import ObjectLostError, RayActorError

from alphazero.config.errors import ConfigError
from alphazero.nn.checkpoint import weights_from_bytes
from alphazero.workers.pool import WorkerSpec, build_worker, raise_if_trainer_stopping
from alphazero.workers.selfplay import GameRecord

CALL_SECONDS = 1.0  # one call's stretch of play: its few ms of overhead stay well under 1%
CALLS_IN_FLIGHT = 2  # the second call waits on the actor while the first one's games travel


@ray.remote
class SelfPlayActor:
    """One self-play worker in a Ray worker process."""

    def __init__(self, spec: WorkerSpec, weights: list, threads: int):
        torch.set_num_threads(threads)
        # The reference comes in a list (with the weights' version) so that Ray passes the
        # reference itself, not its value: the actor fetches weights only when it changes.
        self.weights_ref, self.version = weights
        self.worker, self.inference = build_worker(spec, ray.get(self.weights_ref))

    def play(self, seconds: float, weights: list) -> list[GameRecord]:
        """Play moves for `seconds`; return the games that finished."""
        if weights[0] != self.weights_ref:
            self.weights_ref, self.version = weights
            self.inference.load_state_dict(weights_from_bytes(ray.get(self.weights_ref)))
        games, deadline = [], time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            games += self.worker.play_move()
        for record in games:
            record.network = self.version
        return games


def connect(address: str | None, cpus_needed: float) -> bool:
    """Join the cluster at `address` ('auto': the one on this machine), or with None start
    a private one here; True when this call started Ray (and so should shut it down)."""
    if ray.is_initialized():
        return False
    quiet = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    if address is None:
        # Logical CPUs: never fewer than the workers ask for, so none waits for a slot. A
        # private instance listens on loopback only: nothing outside this machine joins it.
        ray.init(address="local", num_cpus=max(os.cpu_count() or 1, math.ceil(cpus_needed)),
                 _node_ip_address="127.0.0.1", **quiet)
    else:
        try:
            ray.init(address=address, **quiet)
        except ConnectionError as error:
            raise ConfigError(f"pool.address={address}: no Ray cluster to join ({error}); "
                              "start one with `ray start --head`.") from None
    return True


def auto_worker_count(resources: dict, num_cpus: float, num_gpus: float) -> int:
    """As many workers as the cluster holds, leaving one CPU to the trainer."""
    count = int((resources.get("CPU", 1) - 1) // num_cpus)
    if num_gpus:
        count = min(count, int(resources.get("GPU", 0) // num_gpus))
    return max(1, count)


class RayPool:
    """W self-play actors on a Ray cluster (`pool.kind=ray`)."""

    def __init__(self, spec: WorkerSpec, workers, address: str | None = None,
                 num_cpus: float = 1, num_gpus: float = 0):
        self.spec = spec
        self.workers_setting = workers  # a number, or 'auto' (known once connected)
        self.address = address
        self.num_cpus, self.num_gpus = num_cpus, num_gpus
        self.actors: list = []
        self.in_flight: dict = {}  # call's result reference -> (worker index, actor)
        self.answered: set[int] = set()  # workers whose current actor has returned games
        self.finished_games: queue.Queue = queue.Queue()
        self.weights = None  # [reference to the latest weights, their version], set at once
        self.restarts = 0
        self.owns_ray = False
        self.stopping = threading.Event()
        self.pump_thread: threading.Thread | None = None
        self.pump_error: BaseException | None = None

    @property
    def workers_alive(self) -> int:
        return len(self.answered)

    def _launch(self, i: int) -> None:
        spec = dataclasses.replace(self.spec, seed=self.spec.seed * 1000 + i + 1000 * self.restarts)
        actor = SelfPlayActor.options(num_cpus=self.num_cpus, num_gpus=self.num_gpus).remote(
            spec, self.weights, max(1, round(self.num_cpus)))
        self.actors[i] = actor
        for _ in range(CALLS_IN_FLIGHT):
            self._submit(i)

    def _submit(self, i: int) -> None:
        actor = self.actors[i]
        self.in_flight[actor.play.remote(CALL_SECONDS, self.weights)] = (i, actor)

    def _receive(self, ref) -> None:
        i, actor = self.in_flight.pop(ref)
        try:
            games = ray.get(ref)
        except (RayActorError, ObjectLostError) as error:  # its process or its node died
            if getattr(error, "actor_init_failed", False):
                raise  # a worker that cannot start would fail again: stop and say why
            if self.actors[i] is actor:  # the first failed call of this actor replaces it
                ray.kill(actor)  # in case it is only unreachable, not dead
                self.answered.discard(i)
                self.restarts += 1
                self._launch(i)
            return
        self.answered.add(i)
        for record in games:
            self.finished_games.put(record)
        self._submit(i)

    def _pump(self) -> None:
        try:
            while not self.stopping.is_set():
                ready, _ = ray.wait(list(self.in_flight), num_returns=1, timeout=0.5)
                for ref in ready:
                    self._receive(ref)
        except BaseException as error:  # handed to the trainer's thread by collect
            self.pump_error = error

    def start(self, weights: bytes, version: int = 0) -> None:
        workers = self.workers_setting
        self.owns_ray = connect(self.address, (workers if workers != "auto" else 1) * self.num_cpus)
        if workers == "auto":
            workers = auto_worker_count(ray.cluster_resources(), self.num_cpus, self.num_gpus)
        self.weights = [ray.put(weights), version]
        self.actors = [None] * workers
        for i in range(workers):
            self._launch(i)
        self.pump_thread = threading.Thread(target=self._pump, name="ray-pool", daemon=True)
        self.pump_thread.start()

    def publish(self, weights: bytes, version: int) -> None:
        self.weights = [ray.put(weights), version]  # calls submitted from now on carry it

    def collect(self, min_positions: int, stop: threading.Event | None = None) -> list[GameRecord]:
        games, positions = [], 0
        while positions < min_positions:
            raise_if_trainer_stopping(stop)
            try:
                record = self.finished_games.get(timeout=1.0)
            except queue.Empty:
                if self.pump_error is not None:
                    raise self.pump_error
                continue
            games.append(record)
            positions += record.length
        return games

    def stop(self) -> None:
        self.stopping.set()
        if self.pump_thread is not None:
            self.pump_thread.join()
        for actor in self.actors:
            if actor is not None:
                ray.kill(actor)
        if self.owns_ray:
            ray.shutdown()
