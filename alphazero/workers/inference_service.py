"""One process that evaluates every self-play worker's positions: the shared inference service.

On a GPU one worker cannot keep the network busy: its search on one CPU core produces
positions more slowly than the GPU evaluates them, and its batch (one leaf per game) is small
for a GPU. So W workers run their searches on their own cores and send each search step's
batch here; the service evaluates every batch waiting at that moment in one network call and
answers each worker. While it evaluates, the other workers search, so the device and the
cores work at the same time.

Each worker has one block of shared memory (its inputs and the answers, sized for its largest
batch) and one pipe that carries only (request number, batch size) and the answer's (request
number, version of the weights that answered it). A replacement for a dead worker reuses
both; request numbers let it ignore an answer meant for its predecessor. The service runs the same code on a CPU, where tests exercise it.
"""
from __future__ import annotations

import collections
import multiprocessing.connection as mp_connection
import queue
import time

import numpy as np
import torch

from alphazero.config.devices import select_device
from alphazero.nn.checkpoint import weights_from_bytes
from alphazero.nn.network import build_inference
from alphazero.workers.signals import stop_pool_on_signals
from games import make_game


class SharedBlock:
    """One worker's batch in shared memory: planes and legal masks in, priors and values out.
    Built in the parent; the arrays are views made afresh in each process that uses it."""

    def __init__(self, context, rows: int, plane_shape: tuple, actions: int):
        self.rows, self.plane_shape, self.actions = rows, tuple(plane_shape), actions
        cells = int(np.prod(plane_shape))
        self.raw = (context.RawArray("f", rows * cells), context.RawArray("b", rows * actions),
                    context.RawArray("f", rows * actions), context.RawArray("f", rows))

    def views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        planes, legal, priors, values = (np.frombuffer(r, dtype=d) for r, d in
                                         zip(self.raw, (np.float32, np.bool_, np.float32, np.float32)))
        return (planes.reshape(self.rows, *self.plane_shape), legal.reshape(self.rows, self.actions),
                priors.reshape(self.rows, self.actions), values)


class RemoteEvaluator:
    """A worker's evaluator: `(planes, legal) -> (priors, values)` answered by the service.
    The answers are views into shared memory, valid until the next call (the search reads
    them before it asks again)."""

    def __init__(self, block: SharedBlock, conn, first_request: int):
        self.planes, self.legal, self.priors, self.values = block.views()
        self.conn = conn
        self.request = first_request
        self.version = 0  # of the weights that gave the last answer

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(planes)
        self.planes[:n] = planes
        self.legal[:n] = legal
        self.request += 1
        self.conn.send((self.request, n))
        answered = None
        while answered != self.request:  # else an answer to this worker's dead predecessor
            answered, self.version = self.conn.recv()
        return self.priors[:n], self.values[:n]


def newest_weights(weights_queue) -> tuple[int, bytes] | None:
    """The last (version, weights) waiting in the queue (older ones are skipped), or None."""
    latest = None
    try:
        while True:
            latest = weights_queue.get_nowait()
    except queue.Empty:
        return latest


class Slot:
    """One batch's host buffers (page-locked on CUDA) and the requests it holds. On CUDA
    there are two, used in turn: one is filled while the device works on the other."""

    def __init__(self, rows: int, plane_shape: tuple, actions: int, pinned: bool):
        self.planes = torch.empty((rows, *plane_shape), pin_memory=pinned)
        self.legal = torch.empty((rows, actions), dtype=torch.bool, pin_memory=pinned)
        self.priors = torch.empty((rows, actions), pin_memory=pinned)
        self.values = torch.empty(rows, pin_memory=pinned)
        self.arrays = (self.planes.numpy(), self.legal.numpy(), self.priors.numpy(),
                       self.values.numpy())
        self.requests: list = []  # (worker's pipe, request number, first row, rows)
        self.version = 0  # of the weights that evaluate this slot's batch
        # on CUDA, recorded after the answers' copies of each call
        self.done = torch.cuda.Event() if pinned else None


def service_main(spec, weights_queue, blocks: list, conns: list, counters, stop_event) -> None:
    """The service process: load the first weights, then answer batches until stopped,
    loading newer weights between batches. counters: positions evaluated, network calls,
    nanoseconds the service spends launching calls and waiting for their answers, and
    nanoseconds spent waiting for requests (how much the workers keep it waiting).

    On CUDA two batches are in flight: while the device evaluates one, the service gathers
    the next from the workers that are not waiting for it and queues it behind, so the
    device does not idle while the service copies requests and answers workers. On a CPU
    each batch is answered at once. Weights come as (version, weights); each answer names the
    version that evaluated it."""
    stop_pool_on_signals(stop_event)
    torch.set_num_threads(1)  # on a CPU the workers need the other cores
    game = make_game(spec.game_name, **spec.game_params)
    device = select_device(spec.device)
    version, weights = weights_queue.get()
    inference = build_inference(spec.model_kind, game, spec.model_sizes, device, spec.precision,
                                weights_from_bytes(weights))
    workers = {id(conn): block.views() for conn, block in zip(conns, blocks)}
    on_cuda = device.type == "cuda"
    rows = sum(block.rows for block in blocks)
    slots = [Slot(rows, blocks[0].plane_shape, blocks[0].actions, on_cuda)
             for _ in range(2 if on_cuda else 1)]
    in_flight: collections.deque = collections.deque()
    launches = 0
    while not stop_event.is_set():
        latest = newest_weights(weights_queue)
        if latest is not None:  # on CUDA, ordered after the calls already queued
            version, weights = latest
            inference.load_state_dict(weights_from_bytes(weights))
        waited = time.perf_counter_ns()
        ready = mp_connection.wait(conns, timeout=0 if in_flight else 0.2)
        with counters.get_lock():
            counters[3] += time.perf_counter_ns() - waited
        if ready:
            slot = slots[launches % len(slots)]
            launches += 1
            total = gather(slot, ready, workers)
            slot.version = version
            began = time.perf_counter_ns()
            inference.launch(slot.planes[:total], slot.legal[:total], slot.priors[:total],
                             slot.values[:total])
            if slot.done is not None:
                slot.done.record()
            with counters.get_lock():  # before the answers, so a worker that has one sees its count
                counters[0] += total
                counters[1] += 1
                counters[2] += time.perf_counter_ns() - began
            in_flight.append(slot)
        if in_flight and (len(in_flight) == len(slots) or not ready):
            answer(in_flight.popleft(), workers, counters)


def gather(slot: Slot, ready: list, workers: dict) -> int:
    """Copy the batches of the workers whose requests are waiting into one slot; returns
    the rows gathered."""
    planes, legal, _, _ = slot.arrays
    slot.requests, total = [], 0
    for conn in ready:
        request, n = conn.recv()
        worker_planes, worker_legal, _, _ = workers[id(conn)]
        planes[total:total + n] = worker_planes[:n]
        legal[total:total + n] = worker_legal[:n]
        slot.requests.append((conn, request, total, n))
        total += n
    return total


def answer(slot: Slot, workers: dict, counters) -> None:
    """Wait for a slot's answers, then copy each worker its rows and tell it."""
    if slot.done is not None:
        began = time.perf_counter_ns()
        slot.done.synchronize()
        with counters.get_lock():
            counters[2] += time.perf_counter_ns() - began
    _, _, priors, values = slot.arrays
    for conn, request, start, n in slot.requests:
        _, _, out_priors, out_values = workers[id(conn)]
        out_priors[:n] = priors[start:start + n]
        out_values[:n] = values[start:start + n]
        conn.send((request, slot.version))
