"""Which torch device and inference precision a setting names, checked with the rest of the
config before any work starts.

Checking a setting does not import torch (2-3 s of a command's start on a loaded 2-core
machine): a machine without a GPU's device file has no CUDA, and only where one is there is
torch asked.
"""
from __future__ import annotations

import glob
import sys

from alphazero.config.errors import ConfigError

PRECISIONS = ("auto", "float32", "bfloat16", "int8", "float16")
# NVIDIA's device files, WSL's GPU and ROCm's (which torch drives through torch.cuda too)
GPU_DEVICE_FILES = ("/dev/nvidia[0-9]*", "/dev/dxg", "/dev/kfd")


def cuda_available() -> bool:
    if sys.platform == "linux" and not any(glob.glob(pattern) for pattern in GPU_DEVICE_FILES):
        return False
    import torch
    return torch.cuda.is_available()


def device_name(name: str) -> str:
    """'auto' (CUDA when present, else CPU), 'cpu', or 'cuda' / 'cuda:N', as torch names it."""
    if name == "auto":
        return "cuda" if cuda_available() else "cpu"
    if name == "cpu":
        return name
    if name == "cuda" or (isinstance(name, str) and name.startswith("cuda:")):
        if not cuda_available():
            raise ConfigError(f"device '{name}' was requested but this torch build or machine "
                              "has no CUDA GPU; use device=cpu or device=auto.")
        return name
    raise ConfigError(f"unknown device '{name}'; choose auto, cpu or cuda.")


def select_device(name: str):
    """The torch.device of a device setting (device_name's)."""
    import torch
    return torch.device(device_name(name))


def check_precision(precision: str, device: str) -> None:
    """`device` as device_name gives it."""
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown precision '{precision}'; choose one of: {', '.join(PRECISIONS)}.")
    if precision == "float16" and not device.startswith("cuda"):
        raise ConfigError("float16 inference needs a CUDA device; use bfloat16 or float32 on the CPU.")
    if precision == "int8" and device != "cpu":
        raise ConfigError("int8 inference runs on the CPU only (through ONNX Runtime); use "
                          "float32, bfloat16 or float16 on CUDA.")
