"""The import rules of docs/design.md: a module imports only its own layer's modules and the
layers below it, no modules import each other, directly or around a loop, and no command
imports another's modules; and the limit on a Numba kernel's positional parameters."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Lowest first. A module belongs to the longest prefix that names it; the top-level modules
# of alphazero (the commands) fall to "alphazero".
LAYERS = ["games.core", "games.", "games", "games.__main__", "alphazero.config", "alphazero.search", "alphazero.nn",
          "alphazero.agent", "alphazero.evaluate", "alphazero.workers", "alphazero.train",
          "alphazero"]
OWN_GAME_ONLY = "games."  # a game's package may import games.core, not another game


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    found = {}
    for top in ("games", "alphazero"):
        for path in (ROOT / top).rglob("*.py"):
            found[module_name(path)] = path
    return found


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """Every project module `path` imports, at its top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def layer(name: str) -> tuple[int, str]:
    """(rank, group): the layer of the longest prefix naming the module, and for a game's
    module its game's package."""
    if name.startswith("games.") and not name.startswith(("games.core", "games.__main__")):
        return LAYERS.index(OWN_GAME_ONLY), ".".join(name.split(".")[:2])
    matches = [rank for rank, prefix in enumerate(LAYERS)
               if prefix != OWN_GAME_ONLY and (name == prefix or name.startswith(prefix + "."))]
    assert matches, f"{name} is in no layer"
    rank = max(matches, key=lambda r: len(LAYERS[r]))
    return rank, LAYERS[rank]


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(path, name, set(found)) for name, path in found.items()}


def test_every_import_goes_to_the_same_layer_or_below():
    upward = []
    for name, targets in graph().items():
        rank, group = layer(name)
        for target in targets:
            target_rank, target_group = layer(target)
            if target_rank > rank or (target_rank == rank and LAYERS[rank] == OWN_GAME_ONLY
                                      and target_group != group):
                upward.append(f"{name} imports {target}")
    # The registry names the games; it loads one only when asked for it by name.
    upward = [line for line in upward if not line.startswith("games imports games.")]
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycles():
    edges = graph()
    cycles, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not cycles, "\n".join(cycles)


# Each command and the modules that are its alone; what two commands share lives in a layer.
COMMANDS = {
    "train": ("alphazero.train.__main__", "alphazero.train.loop"),
    "evaluate": ("alphazero.evaluate.__main__", "alphazero.evaluate.command"),
    "curve": ("alphazero.curve",),
    "play": ("alphazero.play",),
    "engine": ("alphazero.engine", "alphazero.gtp_engine", "alphazero.engine_protocol"),
    "serve": ("alphazero.serve",),
    "export": ("alphazero.export",),
    "bench": ("alphazero.bench",),
}


def command_of(name: str) -> str | None:
    return next((command for command, prefixes in COMMANDS.items()
                 if any(name == p or name.startswith(p + ".") for p in prefixes)), None)


def test_no_command_imports_another():
    edges = graph()
    for command, prefixes in COMMANDS.items():
        for prefix in prefixes:
            assert prefix in edges, f"{prefix}, named as {command}'s, is no module"
    crossing = [f"{name} ({command_of(name)}) imports {target} ({command_of(target)})"
                for name, targets in edges.items() if command_of(name)
                for target in targets if command_of(target) not in (None, command_of(name))]
    assert not crossing, "\n".join(sorted(crossing))


MAX_KERNEL_PARAMETERS = 10  # past this, related arguments travel together (a named tuple, one array)


def is_njit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)) == "njit"


def long_kernels(source: str) -> list[str]:
    """The Numba kernels in `source` with more than MAX_KERNEL_PARAMETERS positional parameters."""
    return [f"{node.name} (line {node.lineno}) takes {count}"
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef) and any(map(is_njit, node.decorator_list))
            and (count := len(node.args.posonlyargs) + len(node.args.args)) > MAX_KERNEL_PARAMETERS]


def test_no_numba_kernel_takes_more_than_ten_positional_parameters():
    found = [f"{path.relative_to(ROOT)}: {line}" for path in modules().values()
             for line in long_kernels(path.read_text())]
    assert not found, "\n".join(found)


def test_the_kernel_check_counts_every_njit_form():
    params = ", ".join(f"a{i}" for i in range(11))
    source = (f"@njit\ndef bare({params}): pass\n"
              f"@numba.njit(cache=True)\ndef called({params}): pass\n"
              f"@njit(cache=True)\ndef fits({params[:-5]}): pass\n"
              f"def plain({params}): pass\n")
    assert [line.split()[0] for line in long_kernels(source)] == ["bare", "called"]


def test_the_layers_test_sees_an_upward_import():
    assert layer("alphazero.search.puct")[0] < layer("alphazero.train.loop")[0]
    assert layer("games.othello.solver")[1] != layer("games.connect4.rules")[1]
