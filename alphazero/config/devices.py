"""Which torch device and inference precision a setting names, checked with the rest of the
config before any work starts."""
from __future__ import annotations

import torch

from alphazero.config.errors import ConfigError

PRECISIONS = ("float32", "bfloat16", "float16")


def select_device(name: str) -> torch.device:
    """'auto' (CUDA when present, else CPU), 'cpu', or 'cuda' / 'cuda:N'."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise ConfigError(f"device '{name}' was requested but this torch build or machine "
                              "has no CUDA GPU; use device=cpu or device=auto.")
        return torch.device(name)
    raise ConfigError(f"unknown device '{name}'; choose auto, cpu or cuda.")


def check_precision(precision: str, device: torch.device) -> None:
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown precision '{precision}'; choose one of: {', '.join(PRECISIONS)}.")
    if precision == "float16" and device.type != "cuda":
        raise ConfigError("float16 inference needs a CUDA device; use bfloat16 or float32 on the CPU.")
