"""Where the config tree and the shipped networks are, in a checkout and when installed,
and where this user's cache is.

In a checkout (and an editable install) they are the top-level `conf/` and
`checkpoints/pretrained/`. `pip install .` copies them into the package as
`alphazero/conf/` and `alphazero/pretrained/` (pyproject.toml's package-dir), so every
command finds them from any working folder.
"""
from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # alphazero/
_CHECKOUT = _PACKAGE.parent


def _first_existing(*candidates: Path) -> Path:
    return next((path for path in candidates if path.is_dir()), candidates[-1])


CONF_DIR = _first_existing(_PACKAGE / "conf", _CHECKOUT / "conf")
PRETRAINED_DIR = _first_existing(_PACKAGE / "pretrained", _CHECKOUT / "checkpoints" / "pretrained")
# networks ready for ONNX Runtime (alphazero.nn.network_cache), by the XDG convention
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "alphazero-boardgames"
