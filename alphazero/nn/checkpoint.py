"""Checkpoints: atomic writes (reports too), safe loads, a check that a checkpoint fits the game,
and weights as bytes (what self-play workers are sent); the run folder of a command that failed
before its first result, removed (`discard_run_folder`).

Files are written to a temporary name in the same folder, flushed to disk and renamed, so a
run killed at any moment leaves either the previous file or the new one, never a torn one.
Checkpoints hold tensors and plain data only and load with weights_only=True: a checkpoint
someone shares cannot run code. Torch is imported by the functions that read or write
tensors only: a process that plays from the network cache (alphazero.nn.network_cache)
checks checkpoints without it.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple

from alphazero.config.errors import ConfigError
from games.connect4.rules import add_side_to_move


class CheckpointError(ConfigError):
    """A checkpoint that is missing, unreadable or made for another game (a setting's file, so
    a user's mistake like any bad setting); one sentence."""


# Network sizes that older checkpoints save and the networks no longer take, each with the
# value that is now the only behaviour (docs/experiments.md, "Removed options").
REMOVED_SIZES = {"head_slope": 0.0, "head_norm": True, "ownership": False}

# Input planes a game gained after networks were trained for it. An older network gets zero
# weights for the new planes, so it plays exactly as before; its optimizer's moments and its
# replay buffer are widened too, so its run resumes.
class AddedPlanes(NamedTuple):
    before: int              # the planes networks were trained on
    after: int               # the planes the game encodes now
    add_to_samples: Callable  # uint8 samples [n, before, H, W] -> [n, after, H, W]


ADDED_PLANES = {"connect4": AddedPlanes(4, 5, add_side_to_move)}
FIRST_LAYER = "body.0.weight"  # every network kind's first convolution (alphazero.nn.network)


def save_atomic(obj: dict, path: str | os.PathLike) -> None:
    import torch
    _write_atomic(path, lambda stream: torch.save(obj, stream))


def save_json_atomic(report: dict, path: str | os.PathLike) -> None:
    """A JSON report (a ladder, a curve), written the same safe way."""
    _write_atomic(path, lambda stream: stream.write(json.dumps(report, indent=2).encode()))


def save_text_atomic(text: str, path: str | os.PathLike) -> None:
    """A text file (a run's kept games), written the same safe way."""
    save_bytes_atomic(text.encode(), path)


def save_bytes_atomic(data: bytes, path: str | os.PathLike) -> None:
    _write_atomic(path, lambda stream: stream.write(data))


def _write_atomic(path: str | os.PathLike, write) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# What a command writes into its run folder as it starts: Hydra's copy of the settings, the
# command's log, TensorBoard's event files.
STARTUP_FILES = (".hydra", "*.log", "events.out.tfevents.*")


def discard_run_folder(run_dir: str | os.PathLike) -> None:
    """Remove the run folder of a command that failed before writing a result: the files its
    start wrote (STARTUP_FILES), then the folder and the folders above it that this leaves
    empty, up to the working directory (runs/<game>/ when it was the game's only run; a
    folder outside the working directory, with its parent at most). A folder holding anything
    else stays: a user's own folder is never emptied."""
    run_dir = Path(run_dir)
    for pattern in STARTUP_FILES:
        for path in run_dir.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    folder, top = run_dir.resolve(), Path.cwd().resolve()
    stop = top if top in folder.parents else folder.parent.parent
    while folder != stop:
        try:
            folder.rmdir()
        except OSError:  # not empty, or already gone
            return
        folder = folder.parent


def load(path: str | os.PathLike) -> dict:
    import torch
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}.")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except OSError as error:
        raise CheckpointError(f"cannot read {path}: {error.strerror or error}.") from None
    except Exception:  # torch raises many kinds for a file it cannot read
        saved = None
    if not isinstance(saved, dict):
        raise CheckpointError(f"{path} is not a checkpoint (torch saves one with torch.save, as "
                              "training does).")
    if isinstance(saved.get("model_sizes"), dict):
        saved["model_sizes"] = current_sizes(saved["model_sizes"], path)
    widen_input(saved)
    return saved


def widen_input(saved: dict) -> None:
    """Give the network of a checkpoint saved before its game gained input planes
    (ADDED_PLANES) zero weights for them, and its optimizer zero moments."""
    model = saved.get("model")
    if saved.get("game") not in ADDED_PLANES or not isinstance(model, dict):
        return
    added, weight = ADDED_PLANES[saved["game"]], model.get(FIRST_LAYER)
    if weight is None or weight.dim() != 4 or weight.shape[1] != added.before:
        return
    model[FIRST_LAYER] = _with_zero_planes(weight, added.after)
    # The first layer's weight is the optimizer's first parameter (model.parameters() order).
    moments = (saved.get("optimizer") or {}).get("state", {}).get(0, {})
    for name, value in moments.items():
        if getattr(value, "shape", None) == weight.shape:
            moments[name] = _with_zero_planes(value, added.after)


def _with_zero_planes(tensor, planes: int):
    """A first-layer tensor [out, in, k, k] widened to `planes` inputs by zeros."""
    import torch
    zeros = tensor.new_zeros(tensor.shape[0], planes - tensor.shape[1], *tensor.shape[2:])
    return torch.cat([tensor, zeros], dim=1)


def widen_replay(state: dict, game_name: str) -> dict:
    """A replay buffer's saved samples (ReplayBuffer.state_dict) with the planes their game
    gained since (ADDED_PLANES) added."""
    import torch
    added, planes = ADDED_PLANES.get(game_name), state.get("planes")
    if added is not None and planes is not None and planes.shape[1] == added.before:
        state["planes"] = torch.from_numpy(added.add_to_samples(planes.numpy()))
    return state


def current_sizes(sizes: dict, path) -> dict:
    """A checkpoint's network sizes without the removed ones, which it may hold only at the
    value that is now the only behaviour."""
    for key, only in REMOVED_SIZES.items():
        if key in sizes and sizes[key] != only:
            raise CheckpointError(f"the network in {path} was trained with model.sizes.{key}="
                                  f"{str(sizes[key]).lower()}, an option since removed; "
                                  f"docs/experiments.md (\"Removed options\") names the commit "
                                  f"that still plays it.")
    return {key: value for key, value in sizes.items() if key not in REMOVED_SIZES}


def check_game(checkpoint: dict, game_name: str, game_params: dict, path) -> None:
    """Refuse a checkpoint trained for another game or board (training goes on only with
    exactly the game it was trained on)."""
    saved = (checkpoint.get("game"), checkpoint.get("game_params"))
    if saved != (game_name, game_params):
        raise CheckpointError(f"checkpoint {path} is for {saved[0]} {describe_params(saved[1])}, "
                              f"not {game_name} {describe_params(game_params)}.")


def check_plays(checkpoint: dict, game, path) -> None:
    """Refuse a checkpoint whose network cannot play `game`'s boards (Game.played_by), in
    one sentence that says which boards it plays."""
    trained = checkpoint.get("game_params")
    if not plays(checkpoint, game):
        raise CheckpointError(f"the network in {path} plays {checkpoint.get('game')} with "
                              f"{describe_params(trained)}, not {game.name} with "
                              f"{describe_params(game.params())}.")


def plays(checkpoint: dict, game) -> bool:
    """Whether the network of `checkpoint` (its entries, tensors or not) plays `game`'s boards."""
    return checkpoint.get("game") == game.name and game.played_by(checkpoint.get("game_params"))


def describe_params(params) -> str:
    """Game parameters as a user types them: {'rows': [9, 12], 'forbidden': None} ->
    'rows=[9, 12] forbidden=null' (and true/false for booleans)."""
    if not isinstance(params, dict):
        return str(params)
    def typed(value):
        return "null" if value is None else str(value).lower() if isinstance(value, bool) else value
    return " ".join(f"{key}={typed(value)}" for key, value in params.items())


def weights_to_bytes(state_dict: dict) -> bytes:
    """A state dict as bytes, on the CPU, for a worker in another process."""
    import torch
    buffer = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state_dict.items()}, buffer)
    return buffer.getvalue()


def weights_from_bytes(blob: bytes) -> dict:
    import torch
    return torch.load(io.BytesIO(blob), weights_only=True)
