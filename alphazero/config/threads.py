"""Torch thread counts chosen by the product, so that nobody needs OMP_NUM_THREADS.

A search calls the network with a few positions at a time, too little work to share among
threads, and each extra thread spins on a core that another process may need: two engines
started side by side with torch's default (a thread per core) each ran a move about eight
times slower. So searches (play, engine, evaluate, curve, the web board) take one thread. A
training run that plays in its own process (selfplay.workers=0) is the machine's one heavy
process and takes every core it may run on; with worker processes, each worker and the
trainer take one. `threads=N` in the config overrides the choice.

A process that plays from the network cache never imports torch (alphazero.nn.network_cache):
the count it chose is kept here, for ONNX Runtime, and for torch if it is imported later.
"""
from __future__ import annotations

import os
import sys

_chosen: list[int] = []  # the count this process chose, once it has


def usable_cores() -> int:
    """The cores this process may run on (a taskset or container limit counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def use_search_threads(setting) -> int:
    """Threads for a search process (play, engine, evaluate, curve, the web board): 1 unless set."""
    return _use(1 if setting == "auto" else setting)


def use_training_threads(setting, workers: int) -> int:
    """Threads for the training process: every usable core when it also plays (no worker
    processes), else one, the workers having the other cores."""
    return _use((usable_cores() if workers == 0 else 1) if setting == "auto" else setting)


def _use(count: int) -> int:
    _chosen[:] = [int(count)]
    if "torch" in sys.modules:
        give_torch_threads()
    return int(count)


def chosen_threads() -> int:
    """The threads a network runs on in this process: the count chosen, else torch's own
    where torch is imported, else a search's one."""
    if _chosen:
        return _chosen[0]
    if "torch" in sys.modules:
        return sys.modules["torch"].get_num_threads()
    return 1


def give_torch_threads() -> None:
    """Set torch to the count chosen (nothing chosen: torch keeps its own)."""
    if _chosen:
        import torch
        torch.set_num_threads(_chosen[0])
        # subnormals flushed before the first parallel region, so that torch's pool threads
        # inherit it (every network call flushes its own thread too: alphazero.nn.denormals)
        torch.set_flush_denormal(True)

