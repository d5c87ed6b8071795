"""What a trained network cost: its size, the multiply-adds of one evaluation, and the
self-play search that trained it, read from its checkpoint's counters and config.

    python scripts/training_compute.py CHECKPOINT [resnet=BLOCKSxCHANNELS]

Self-play's simulations are counted as played (alphazero.train.compute). `resnet=5x128` also
prints the multiply-adds of a residual tower of that size on the same board (`model=resnet`),
to set the run beside a published one with such a tower. Prints one JSON line.
"""
from __future__ import annotations

import json
import re
import sys

import torch

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model
from alphazero.train.compute import selfplay_search
from games import make_game


def multiply_adds(model: torch.nn.Module, spec) -> int:
    """Multiply-adds of one position's evaluation (convolutions and linear layers)."""
    total = 0

    def count(module, _inputs, output):
        nonlocal total
        if isinstance(module, torch.nn.Conv2d):
            kernel = module.kernel_size[0] * module.kernel_size[1]
            total += (module.in_channels * module.out_channels * kernel
                      * output.shape[-2] * output.shape[-1] // module.groups)
        elif isinstance(module, torch.nn.Linear):
            total += module.in_features * module.out_features

    hooks = [m.register_forward_hook(count) for m in model.modules()]
    with torch.no_grad():
        model.eval()(torch.zeros(1, spec.planes, spec.height, spec.width))
    for hook in hooks:
        hook.remove()
    return total


def network_cost(model: torch.nn.Module, spec) -> dict:
    return {"parameters": sum(p.numel() for p in model.parameters()),
            "multiply_adds": multiply_adds(model, spec)}


def training_compute(path: str, resnet: str | None) -> dict:
    saved = checkpoint.load(path)
    if "counters" not in saved:
        raise checkpoint.CheckpointError(f"{path} holds a network without its run's counters; "
                                         "give a run's checkpoint, such as checkpoints/RUN/latest.pt.")
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    config, counters = saved["config"], saved["counters"]
    search = selfplay_search(config, counters)
    network = network_cost(model, game)
    report = {"checkpoint": path, "game": saved["game"], **network, "games": counters["games"],
              "plies_per_game": round(search["plies"] / counters["games"], 1),
              "simulations_per_ply": round(search["simulations_per_ply"], 1),
              "selfplay_simulations": round(search["simulations"]),
              "selfplay_multiply_adds": f"{search['simulations'] * network['multiply_adds']:.3g}"}
    if resnet:
        blocks, channels = (int(n) for n in resnet.split("x"))
        tower = build_model("resnet", game, blocks=blocks, channels=channels)
        report["resnet"] = {"size": resnet, **network_cost(tower, game)}
    return report


if __name__ == "__main__":
    args = sys.argv[1:]
    tower = next((a.split("=", 1)[1] for a in args if a.startswith("resnet=")), None)
    paths = [a for a in args if not a.startswith("resnet=")]
    if len(paths) != 1 or (tower and not re.fullmatch(r"[1-9]\d*x[1-9]\d*", tower)):
        sys.exit("usage: python scripts/training_compute.py CHECKPOINT [resnet=BLOCKSxCHANNELS]")
    try:
        print(json.dumps(training_compute(paths[0], tower)))
    except checkpoint.CheckpointError as error:
        sys.exit(str(error))
