"""A network whose weights are the mean of several snapshots of one training run.

    python bench/average_snapshots.py OUT.pt SNAPSHOT.pt [SNAPSHOT.pt ...]

An experiment (docs/experiments.md, "Averaged final networks"): one run's final network is
one point on a noisy path, and the mean of its last snapshots may play more steadily. Every
floating-point tensor is averaged, batch-norm running statistics included (the networks'
batch norms sit in the heads, a few channels); counters and configuration come from the last
snapshot, so `evaluate checkpoint=OUT.pt` treats it as that snapshot's network.
"""
from __future__ import annotations

import sys

import torch

from alphazero.nn import checkpoint


def average(paths: list[str]) -> dict:
    saved = [checkpoint.load(path) for path in paths]
    last = saved[-1]
    if any(_shapes(s) != _shapes(last) for s in saved):
        raise checkpoint.CheckpointError("the snapshots hold different network shapes.")
    model = {}
    for key, tensor in last["model"].items():
        if tensor.is_floating_point():
            model[key] = torch.stack([s["model"][key] for s in saved]).mean(dim=0)
        else:
            model[key] = tensor
    return last | {"model": model, "averaged_from": [str(path) for path in paths]}


def _shapes(saved: dict) -> dict:
    return {key: tensor.shape for key, tensor in saved["model"].items()}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        checkpoint.save_atomic(average(argv[2:]), argv[1])
    except checkpoint.CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"written: {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
