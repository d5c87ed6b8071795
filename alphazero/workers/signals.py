"""A signal for a whole process group reaches self-play's processes too.

Ctrl-C in a terminal, `timeout`, `docker stop` and cluster schedulers signal every process of
a run, not the trainer alone. A worker or inference service killed by it would look to the
trainer like a crash: it restarted the workers, and without the service it stopped with an
error. Instead each of them stops the pool on its first SIGINT or SIGTERM, and the trainer
ends the run as it does on its own signal: a checkpoint, then exit. A second signal kills as
usual; `LocalPool.stop` kills outright (SIGKILL) a process still waiting for an answer.

The trainer itself does not stop where a signal finds it: an exception raised at any line
could leave a lock of TensorBoard's writer thread held (closing the writer then waits
forever) or a round half stored. Its first signal sets an event that self-play and the
training steps look at between moves and steps; a second stops at once.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable


def stop_pool_on_signals(stop_event) -> None:
    """In a pool's process: on SIGINT or SIGTERM set the pool's stop event, once."""
    def stop(signum, frame):
        stop_event.set()
        signal.signal(signum, signal.SIG_DFL)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)


def stop_trainer_on_signals(stop: threading.Event) -> Callable[[], None]:
    """In the trainer: the first SIGINT or SIGTERM sets `stop`, a second raises
    KeyboardInterrupt. A SIGINT that the process ignores (a background job of a script)
    stays ignored. Returns what puts the handlers back as they were."""
    def request(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        try:  # not through sys.stderr: the signal may have come in the middle of a write to it
            os.write(2, b"\nstopping: a checkpoint is saved after this move or step "
                        b"(Ctrl-C again to stop at once)\n")
        except OSError:  # stderr was a pipe whose reader is gone
            pass

    signums = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signums.append(signal.SIGINT)
    before = {signum: signal.signal(signum, request) for signum in signums}

    def restore() -> None:
        for signum, handler in before.items():
            signal.signal(signum, handler)
    return restore
