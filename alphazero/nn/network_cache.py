"""A checkpoint's network ready for ONNX Runtime, with the checkpoint's plain entries (its
game, network sizes, counters and config), cached on disk by the checkpoint's bytes.

Why: a process that only plays (the engine, play, the web board) or exports then starts
without importing torch (2-3 s of a loaded 2-core machine's start) and without exporting the
network (2 s, most of it importing onnx): only the first start with a checkpoint does both.
The key also hashes the network's code (network.py, onnx_runtime.py) and its loader
(checkpoint.py, which widens an older network's input), so a change to them makes every entry
stale. The cache keeps the MOST_ENTRIES networks used last.

Every agent on a CPU runs its checkpoint from here (alphazero.agent.build.network_runtime
says where a network runs), whatever the process imported before. A network run in int8 has
its quantized model cached beside, in the folder's int8/ (alphazero.nn.int8.cached_quantized,
by the float model's bytes), so a start quantizes only the first time.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from alphazero.config.paths import CACHE_DIR
from alphazero.nn import checkpoint
from games import make_game

MOST_ENTRIES = 32
NETWORK_KEYS = {"game", "game_params", "model_kind", "model_sizes", "model"}
PLAIN_KEYS = ("game", "game_params", "model_kind", "model_sizes", "counters", "config")
CODE = [Path(__file__).with_name(name) for name in ("network.py", "onnx_runtime.py", "checkpoint.py")]


@dataclass
class CachedNetwork:
    info: dict    # the checkpoint's PLAIN_KEYS entries
    model: bytes  # its network as an ONNX model (alphazero.nn.onnx_runtime.export_model)


def checkpoint_info(path) -> dict:
    """A checkpoint's entries other than tensors, from the cache."""
    return cached_network(path).info


def cached_network(path, folder: Path = CACHE_DIR) -> CachedNetwork:
    """The network of checkpoint file `path`, from the cache, or prepared and cached."""
    path = Path(path)
    if not path.is_file():
        raise checkpoint.CheckpointError(f"no checkpoint at {path}.")
    key = entry_key(path)
    info, model = folder / f"{key}.json", folder / f"{key}.onnx"
    try:
        network = CachedNetwork(json.loads(info.read_text()), model.read_bytes())
        os.utime(info)  # used now: the entries used last are kept
        return network
    except (OSError, ValueError):
        pass
    network = prepare(path, folder)
    try:
        checkpoint.save_bytes_atomic(network.model, model)
        checkpoint.save_bytes_atomic(json.dumps(network.info).encode(), info)
        evict(folder)
    except OSError:
        pass  # a cache that cannot be written: the next start prepares the network again
    return network


def entry_key(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes())
    for code in CODE:
        digest.update(code.read_bytes())
    return digest.hexdigest()[:32]


def prepare(path: Path, folder: Path) -> CachedNetwork:
    """Load the checkpoint with torch and export its network."""
    from alphazero.nn.network import build_model
    from alphazero.nn.onnx_runtime import export_model
    saved = checkpoint.load(path)
    if not NETWORK_KEYS <= set(saved):
        raise checkpoint.CheckpointError(f"{path} holds no network (a replay buffer?).")
    tell_preparing(path, folder)
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    model.eval()
    onnx_model = export_model(model, (game.planes, game.height, game.width), game.num_actions)
    plain = {key: saved[key] for key in PLAIN_KEYS if key in saved}
    return CachedNetwork(json.loads(json.dumps(plain, default=str)), onnx_model)  # as read back


_told: set[Path] = set()  # the cache folders this process has said it prepares networks for


def tell_preparing(first: Path, folder: Path) -> None:
    """One line on stderr a process (the web board's first start prepares every shipped network)."""
    if folder not in _told:
        _told.add(folder)
        print(f"preparing networks for ONNX Runtime, {first} first (once: they are cached in "
              f"{folder} for the next start)...", file=sys.stderr, flush=True)


def evict(folder: Path) -> None:
    """Remove all but the MOST_ENTRIES entries used last."""
    entries = sorted(folder.glob("*.json"), key=lambda info: info.stat().st_mtime, reverse=True)
    for info in entries[MOST_ENTRIES:]:
        info.unlink(missing_ok=True)
        info.with_suffix(".onnx").unlink(missing_ok=True)
