"""The trainer's signals: the first asks it to stop at the next move or step, a second stops it."""
import signal
import threading

import pytest

from alphazero.workers.pool import SelfPlayStopped, raise_if_trainer_stopping
from alphazero.workers.signals import stop_trainer_on_signals


def test_the_first_signal_asks_to_stop_and_the_second_stops_at_once():
    # Ctrl-C as in a terminal (a test worker process may start with SIGINT ignored)
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    stop = threading.Event()
    try:
        restore = stop_trainer_on_signals(stop)
        try:
            raise_if_trainer_stopping(stop)  # nothing asked yet
            signal.raise_signal(signal.SIGTERM)
            assert stop.is_set()
            with pytest.raises(SelfPlayStopped):
                raise_if_trainer_stopping(stop)
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
        finally:
            restore()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, interrupt)


def test_a_sigint_the_process_ignores_stays_ignored():
    """A background job of a script starts with SIGINT ignored: Ctrl-C there is for the script."""
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        restore = stop_trainer_on_signals(threading.Event())
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        restore()
    finally:
        signal.signal(signal.SIGINT, interrupt)
