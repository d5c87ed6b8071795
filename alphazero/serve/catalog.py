"""What the page offers: the games (alphazero.config.presets) and the checkpoint files a session
may load, and of those the ones whose network plays a given game's boards.

A checkpoint path from a request is accepted only when it resolves (symbolic links
followed) to a `.pt` file inside one of the project's checkpoint folders.
"""
from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.nn import checkpoint
from alphazero.nn.network_cache import checkpoint_info

PROJECT_CHECKPOINTS = PRETRAINED_DIR.parent
NOT_NETWORKS = ("replay",)  # checkpoints/<run>/replay.pt holds a replay buffer, not a network


class CatalogError(ValueError):
    """A game or checkpoint the server does not offer; one sentence for the page."""


def checkpoint_roots(cfg: DictConfig) -> list[Path]:
    """The shipped networks' folder's parent, and training's checkpoint folder."""
    roots = [PROJECT_CHECKPOINTS.resolve(), Path(cfg.train.checkpoint_dir).resolve()]
    return list(dict.fromkeys(roots))


def list_checkpoints(roots: list[Path]) -> list[str]:
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.pt")):
            if path.is_file() and not path.name.startswith((".", *NOT_NETWORKS)):
                found.append(display_path(path))
    return list(dict.fromkeys(found))


def display_path(path: Path) -> str:
    """A path as the page shows and sends it back: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path.resolve())


def resolve_checkpoint(text, roots: list[Path]) -> Path:
    if not isinstance(text, str) or not text or len(text) > 1000 or "\x00" in text:
        raise CatalogError("the checkpoint must be a path such as checkpoints/pretrained/connect6.pt.")
    path = Path(text).resolve()
    if not any(path.is_relative_to(root) for root in roots):
        raise CatalogError(f"{text} is outside the checkpoint folders "
                           f"({', '.join(display_path(r) for r in roots)}); only those are served.")
    if path.suffix != ".pt" or not path.is_file():
        raise CatalogError(f"there is no checkpoint file {text}.")
    return path


class TrainedFor:
    """Which game each checkpoint file's network was trained for, read once per version of
    the file (its entries, from the network cache as the agent reads them)."""

    def __init__(self):
        self.read: dict[tuple[str, int], dict | None] = {}

    def entries(self, path: Path) -> dict | None:
        key = (str(path), path.stat().st_mtime_ns)
        if key not in self.read:
            try:
                info = checkpoint_info(path)
                self.read[key] = {"game": info.get("game"), "game_params": info.get("game_params")}
            except checkpoint.CheckpointError:
                self.read[key] = None  # not a network the page can offer
        return self.read[key]

    def fitting(self, game, paths: list[str]) -> list[str]:
        """Those of `paths` (as list_checkpoints shows them) whose network plays `game`'s
        boards: the ones a new game with them is not refused."""
        fit = []
        for text in paths:
            path = Path(text).resolve()
            entries = path.is_file() and self.entries(path)
            if entries and checkpoint.plays(entries, game):
                fit.append(text)
        return fit
