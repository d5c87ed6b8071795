"""Compile game-generic Numba code once per game, with an on-disk cache.

Generic kernels (perft, search, pure MCTS) are written as plain Python functions that call
the game's kernels by their contract names (`play`, `legal_actions`, ... see games.core.base).
`specialize` binds those names to one game's kernels and jit-compiles the result.

Why not pass the kernels as arguments? Numba keys a function-typed argument by the
function object's identity, so such code is recompiled in every process (no cache hit).
Binding the kernels as globals of a renamed copy gives each game its own cache entry. The
name includes a hash of the sources involved, because Numba's cache only watches the file
of the function itself: an edit to a game's rules must not reuse a stale compiled search.
A closure or a function made at run time would miss the cache for the same reason, so every
compiled copy here is such a renamed module-level function (`bound_copy`).
"""
from __future__ import annotations

import hashlib
import inspect
import sys
import types

from numba import njit

_compiled: dict = {}


def _source_hash(modules, kernels: dict) -> str:
    digest = hashlib.sha1()
    for name, kernel in sorted(kernels.items()):
        digest.update(f"{name}={kernel.py_func.__qualname__};".encode())
    for module in modules:
        digest.update(inspect.getsource(module).encode())
    return digest.hexdigest()[:10]


def specialize(game, templates: list, extra_globals: dict | None = None) -> types.SimpleNamespace:
    """Jit-compile `templates` (Python functions, in dependency order) against `game`'s kernels.

    Templates may call each other by name; each sees the game kernels, the templates before
    it, and `extra_globals`. Returns a namespace of compiled functions by template name.
    """
    kernels = game.kernels._asdict() if game.kernels is not None else {}  # rules in Python:
    # only game-free templates, one compiled copy for every such game
    game_modules = {sys.modules[k.py_func.__module__] for k in kernels.values()}
    template_modules = {sys.modules[t.__module__] for t in templates}
    modules = sorted(game_modules | template_modules, key=lambda m: m.__name__)
    owner = type(game).__name__ if kernels else "python_rules"
    tag = f"{owner}_{_source_hash(modules, kernels)}"
    key = (tag, tuple(t.__qualname__ for t in templates))
    if key in _compiled:
        return _compiled[key]

    bound = dict(kernels)
    bound.update(extra_globals or {})
    out = types.SimpleNamespace()
    for template in templates:
        compiled = bound_copy(template, bound, tag)
        bound[template.__name__] = compiled
        setattr(out, template.__name__, compiled)
    _compiled[key] = out
    return out


def bound_python(game, templates: list) -> types.SimpleNamespace:
    """`templates` run as plain Python against the rule methods of a game in Python
    (games.core.python_game), under the same names: generic code that is not worth a Python
    version of its own (perft, playout timing)."""
    names = {name: getattr(game, name) for name in
             ("legal_actions", "play", "status", "to_move", "ply", "random_playout")}
    out = types.SimpleNamespace()
    for template in templates:
        scope = {**template.__globals__, **names}
        setattr(out, template.__name__, types.FunctionType(template.__code__, scope, template.__name__,
                                                           template.__defaults__))
    return out


def bound_copy(template, names: dict, tag: str):
    """`template` (a plain Python function) jit-compiled with its globals `names` bound to
    the functions given, cached on disk as `<template's name>__<tag>`. `tag` must change
    whenever the bound functions' code does, unless they live in the template's own file."""
    scope = dict(template.__globals__)
    scope.update(names)
    fn = types.FunctionType(template.__code__, scope, template.__name__,
                            template.__defaults__, template.__closure__)
    fn.__qualname__ = f"{template.__name__}__{tag}"
    fn.__module__ = template.__module__
    return njit(cache=True)(fn)


def compiled_for(kernel, *args):
    """`kernel` (a Numba dispatcher) compiled for the types of `args`: its entry point, which
    must be called with arguments of exactly those types, since it does not check them.
    Why: the dispatcher types every argument on every call, and named tuples are slow to
    type. A select_leaves call with nothing to do took 8 µs through the dispatcher (4.4 µs
    with the same arrays and numbers as 21 positional arguments) and 1.5 µs through the entry
    point (a 2-core AMD EPYC, Numba 0.68), where a one-tree search step's work is 10-15 µs."""
    return kernel.compile(tuple(kernel.typeof_pyval(arg) for arg in args))
