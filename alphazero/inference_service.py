"""One process that evaluates every self-play worker's positions: the shared inference service.

On a GPU one worker cannot keep the network busy: its search on one CPU core produces
positions more slowly than the GPU evaluates them, and its batch (one leaf per game) is small
for a GPU. So W workers run their searches on their own cores and send each search step's
batch here; the service evaluates every batch waiting at that moment in one network call and
answers each worker. While it evaluates, the other workers search, so the device and the
cores work at the same time.

Each worker has one block of shared memory (its inputs and the answers, sized for its largest
batch) and one pipe that carries only (request number, batch size) and the answer's request
number. A replacement for a dead worker reuses both; request numbers let it ignore an answer
meant for its predecessor. The service runs the same code on a CPU, where tests exercise it.
"""
from __future__ import annotations

import multiprocessing.connection as mp_connection
import queue
import time

import numpy as np
import torch

from alphazero.network import Inference, build_model, select_device
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

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(planes)
        self.planes[:n] = planes
        self.legal[:n] = legal
        self.request += 1
        self.conn.send((self.request, n))
        while self.conn.recv() != self.request:
            pass  # an answer to a request of this worker's dead predecessor
        return self.priors[:n], self.values[:n]


def newest_weights(weights_queue) -> bytes | None:
    """The last weights waiting in the queue (older ones are skipped), or None."""
    latest = None
    try:
        while True:
            latest = weights_queue.get_nowait()
    except queue.Empty:
        return latest


def service_main(spec, weights_queue, blocks: list, conns: list, counters, stop_event) -> None:
    """The service process: load the first weights, then answer batches until stopped,
    loading newer weights between batches. counters: positions evaluated, network calls,
    nanoseconds inside them (how busy the service keeps the network) and nanoseconds spent
    waiting for requests (how much the workers keep it waiting)."""
    from alphazero.pool import weights_from_bytes  # pool imports this module
    torch.set_num_threads(1)  # on a CPU the workers need the other cores
    game = make_game(spec.game_name, **spec.game_params)
    device = select_device(spec.device)
    inference = Inference(build_model(spec.model_kind, game, **spec.model_sizes).to(device),
                          device, spec.precision)
    inference.load_state_dict(weights_from_bytes(weights_queue.get()))
    views = [block.views() for block in blocks]
    index = {id(conn): i for i, conn in enumerate(conns)}
    # One batch buffer for every call, page-locked on CUDA so that the copy to the device is
    # one direct transfer (and no call allocates and faults in fresh pages).
    pinned = device.type == "cuda"
    rows = sum(block.rows for block in blocks)
    batch_planes = torch.empty((rows, *blocks[0].plane_shape), pin_memory=pinned).numpy()
    batch_legal = torch.empty((rows, blocks[0].actions), dtype=torch.bool, pin_memory=pinned).numpy()
    while not stop_event.is_set():
        latest = newest_weights(weights_queue)
        if latest is not None:
            inference.load_state_dict(weights_from_bytes(latest))
        requests = []
        waited = time.perf_counter_ns()
        ready = mp_connection.wait(conns, timeout=0.2)
        with counters.get_lock():
            counters[3] += time.perf_counter_ns() - waited
        for conn in ready:
            request, n = conn.recv()
            requests.append((conn, views[index[id(conn)]], request, n))
        if not requests:
            continue
        total = 0
        for _, (planes, legal, _, _), _, n in requests:
            batch_planes[total:total + n] = planes[:n]
            batch_legal[total:total + n] = legal[:n]
            total += n
        began = time.perf_counter_ns()
        priors, values = inference(batch_planes[:total], batch_legal[:total])
        took = time.perf_counter_ns() - began
        with counters.get_lock():  # before the answers, so a worker that has one sees its count
            counters[0] += total
            counters[1] += 1
            counters[2] += took
        start = 0
        for conn, (_, _, out_priors, out_values), request, n in requests:
            out_priors[:n] = priors[start:start + n]
            out_values[:n] = values[start:start + n]
            start += n
            conn.send(request)

