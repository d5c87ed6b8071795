"""Weight averaging: one network whose weights are the mean of several snapshots of a run.

`python -m alphazero.average --out checkpoints/connect4_avg.pt checkpoints/connect4/snapshots/games_00{36,38,40,42}*.pt`

Averaging the weights of networks taken along one training run at a low learning rate
(stochastic weight averaging, Izmailov et al. 2018; KataGo plays with such averages) lands
nearer the middle of the region the run wanders in than any single snapshot does, which
often generalises better. The snapshots must share game, board and network sizes. Batch-norm
running statistics are averaged like the weights (the step counter is taken from the last
snapshot); the output is an ordinary network checkpoint that `evaluate`, `play`, `engine`
and `train.resume` read, with the counters and config of the last snapshot given.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from alphazero import checkpoint

# What must agree between snapshots for their weights to mean the same thing.
SHARED_KEYS = ("game", "game_params", "model_kind", "model_sizes")


def average(snapshots: list[dict], names: list[str]) -> dict:
    """The last snapshot's payload with its weights replaced by the mean over all of them."""
    first = snapshots[0]
    for saved, name in zip(snapshots[1:], names[1:]):
        for key in SHARED_KEYS:
            if saved.get(key) != first.get(key):
                raise checkpoint.CheckpointError(
                    f"{name} differs from {names[0]} in {key} ({saved.get(key)} against "
                    f"{first.get(key)}): only snapshots of one network can be averaged.")
    last = snapshots[-1]
    weights = {}
    for key, tensor in last["model"].items():
        if tensor.is_floating_point():
            weights[key] = torch.stack([saved["model"][key] for saved in snapshots]).mean(0)
        else:
            weights[key] = tensor.clone()  # batch norm's step counter: not a weight
    return {key: last[key] for key in (*SHARED_KEYS, "counters", "config") if key in last} | {
        "model": weights, "averaged_from": names}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.average",
        description="Average the weights of several snapshots of one training run.")
    parser.add_argument("snapshots", nargs="+", type=Path,
                        help="network checkpoints of one run, oldest first")
    parser.add_argument("--out", required=True, type=Path, help="where to write the average")
    args = parser.parse_args(argv)
    try:
        if len(args.snapshots) < 2:
            raise checkpoint.CheckpointError("give at least two snapshots to average.")
        if args.out.resolve() in {path.resolve() for path in args.snapshots}:
            raise checkpoint.CheckpointError(f"--out {args.out} is one of the snapshots: "
                                             "write the average to a new file.")
        loaded = [checkpoint.load(path) for path in args.snapshots]
        for saved, path in zip(loaded, args.snapshots):
            if "model" not in saved or "model_kind" not in saved:
                raise checkpoint.CheckpointError(f"{path} holds no network.")
        averaged = average(loaded, [path.name for path in args.snapshots])
    except checkpoint.CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    checkpoint.save_atomic(averaged, args.out)
    games = averaged.get("counters", {}).get("games")
    print(f"written: {args.out}, the mean of {len(loaded)} snapshots"
          + (f" (the last after {games} self-play games)" if games is not None else ""))


if __name__ == "__main__":
    main()
