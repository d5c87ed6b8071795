"""One line on stderr, the first time a process compiles Numba code: a command's first start
compiles its game's kernels for seconds, and they are cached on disk for the next start.
Loading a kernel from the cache says nothing. Stdout stays clean (the engine's is GTP).
"""
from __future__ import annotations

import sys

from numba.core import event


class _FirstCompilation(event.Listener):
    def __init__(self):
        self.told = False

    def on_start(self, compiling: event.Event) -> None:
        if not self.told:
            self.told = True
            function = compiling.data["dispatcher"].py_func
            name = f"{function.__module__}.{function.__qualname__.split('__')[0]}"
            print(f"compiling Numba kernels, {name} first (once: they are cached for the next "
                  "start)...", file=sys.stderr, flush=True)

    def on_end(self, compiling: event.Event) -> None:
        pass


_listener: _FirstCompilation | None = None


def tell_first_compilation() -> None:
    """From now on, say on stderr when Numba compiles for the first time in this process."""
    global _listener
    if _listener is None:
        _listener = _FirstCompilation()
        event.register("numba:compile", _listener)
