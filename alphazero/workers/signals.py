"""A signal for a whole process group reaches self-play's processes too.

Ctrl-C in a terminal, `timeout`, `docker stop` and cluster schedulers signal every process of
a run, not the trainer alone. A worker or inference service killed by it would look to the
trainer like a crash: it restarted the workers, and without the service it stopped with an
error. Instead each of them stops the pool on its first SIGINT or SIGTERM, and the trainer
ends the run as it does on its own signal: a checkpoint, then exit. A second signal kills as
usual; `LocalPool.stop` kills outright (SIGKILL) a process still waiting for an answer.
"""
from __future__ import annotations

import signal


def stop_pool_on_signals(stop_event) -> None:
    """In a pool's process: on SIGINT or SIGTERM set the pool's stop event, once."""
    def stop(signum, frame):
        stop_event.set()
        signal.signal(signum, signal.SIG_DFL)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
