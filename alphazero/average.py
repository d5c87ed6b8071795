"""Weight averaging: one network whose weights are the mean of several snapshots of a run.

`python -m alphazero.average --out checkpoints/connect4_avg.pt checkpoints/connect4/snapshots/games_00{36,38,40,42}*.pt`

Averaging the weights of networks taken along one training run at a low learning rate
(stochastic weight averaging, Izmailov et al. 2018; KataGo plays with such averages) lands
nearer the middle of the region the run wanders in than any single snapshot does, which
often generalises better. The snapshots must share game, board and network sizes. Batch-norm
running statistics are averaged like the weights, unless `--replay checkpoints/<run>/replay.pt`
is given: then they are measured afresh on that buffer's positions, as SWA prescribes (the
averaged weights shift what each batch norm sees). The output is an ordinary network
checkpoint that `evaluate`, `play`, `engine` and `train.resume` read, with the counters and
config of the last snapshot given.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from alphazero import checkpoint
from alphazero.network import build_model
from games import make_game

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


def recompute_batch_norm(averaged: dict, replay: dict, batch_size: int = 256) -> None:
    """Replace the running statistics of every batch norm with their exact mean and variance
    over the replay buffer's positions, computed with the averaged weights."""
    model = build_model(averaged["model_kind"], make_game(averaged["game"], **averaged["game_params"]),
                        **averaged["model_sizes"])
    model.load_state_dict(averaged["model"])
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative mean over all batches, not a moving one
    model.train()
    with torch.no_grad():
        for batch in replay["planes"].float().split(batch_size):
            model(batch)
    averaged["model"] = {key: tensor.detach().clone() for key, tensor in model.state_dict().items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m alphazero.average",
        description="Average the weights of several snapshots of one training run.")
    parser.add_argument("snapshots", nargs="+", type=Path,
                        help="network checkpoints of one run, oldest first")
    parser.add_argument("--out", required=True, type=Path, help="where to write the average")
    parser.add_argument("--replay", type=Path,
                        help="the run's replay.pt: measure batch-norm statistics on its positions")
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
        if args.replay:
            replay = checkpoint.load(args.replay)
            if "planes" not in replay:
                raise checkpoint.CheckpointError(f"{args.replay} is not a replay buffer.")
            recompute_batch_norm(averaged, replay)
    except checkpoint.CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    checkpoint.save_atomic(averaged, args.out)
    games = averaged.get("counters", {}).get("games")
    print(f"written: {args.out}, the mean of {len(loaded)} snapshots"
          + (f" (the last after {games} self-play games)" if games is not None else ""))


if __name__ == "__main__":
    main()
