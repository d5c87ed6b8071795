"""Torch thread counts chosen by the product, so that nobody needs OMP_NUM_THREADS.

A search calls the network with a few positions at a time, too little work to share among
threads, and each extra thread spins on a core that another process may need: two engines
started side by side with torch's default (a thread per core) each ran a move about eight
times slower. So searches (play, engine, evaluate, curve) take one thread. A training run
that plays in its own process (selfplay.workers=0) is the machine's one heavy process and
takes every core it may run on; with worker processes, each worker and the trainer take
one. `threads=N` in the config overrides the choice.
"""
from __future__ import annotations

import os

import torch


def usable_cores() -> int:
    """The cores this process may run on (a taskset or container limit counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def use_search_threads(setting) -> int:
    """Threads for a search process (play, engine, evaluate, curve): 1 unless set."""
    return _use(1 if setting == "auto" else setting)


def use_training_threads(setting, workers: int) -> int:
    """Threads for the training process: every usable core when it also plays (no worker
    processes), else one, the workers having the other cores."""
    return _use((usable_cores() if workers == 0 else 1) if setting == "auto" else setting)


def _use(count: int) -> int:
    torch.set_num_threads(int(count))
    return int(count)
