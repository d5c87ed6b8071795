"""Network positions/s at one batch size, and at sizes that change every call as the inference
service's do. On CUDA, `Inference` pads each call to one of a few sizes and runs a CUDA graph
captured for it, so the two rates should agree; before it did (commit 1fba4cc's version of
this script, docs/performance.md), changing sizes ran 5-11x slower on an H200.

    python scripts/batch_shapes.py game=connect4 rows=6 cols=7 [batch=3600] [seconds=3]

The changing sizes are drawn uniformly from [batch / 2, 3 batch / 2] (seed 0). Each call is
`Inference.__call__`, answers copied back to the host, as the bare-network column of
`python -m alphazero.bench selfplay` times it. On the device `device=auto` picks. Prints one
JSON line.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np
import torch

from alphazero.config.devices import select_device
from alphazero.nn.network import Inference, build_model, padded_batch
from games import make_game


def positions_per_s(inference, game, sizes, seconds: float) -> float:
    """Positions per second over calls of the given sizes in turn."""
    rng = np.random.default_rng(0)
    largest = max(sizes)
    planes = rng.integers(0, 2, (largest, game.planes, game.height, game.width)).astype(np.float32)
    legal = np.ones((largest, game.num_actions), dtype=np.bool_)
    inference(planes[:sizes[0]], legal[:sizes[0]])  # the other shapes come new, as in a run
    done, began, k = 0, time.perf_counter(), 0
    while time.perf_counter() - began < seconds:
        n = sizes[k % len(sizes)]
        inference(planes[:n], legal[:n])
        done, k = done + n, k + 1
    return done / (time.perf_counter() - began)


def main(args: list[str]) -> None:
    options = dict(a.split("=", 1) for a in args)
    batch, seconds = int(options.pop("batch", 3600)), float(options.pop("seconds", 3))
    game = make_game(options.pop("game"), **{k: json.loads(v) for k, v in options.items()})
    device = select_device("auto")
    torch.set_num_threads(1)
    inference = Inference(build_model("cnn", game).to(device), device, "float32")
    changing = np.random.default_rng(0).integers(batch // 2, 3 * batch // 2 + 1, 10_000).tolist()
    fixed = positions_per_s(inference, game, [batch], seconds)
    changing_rate = positions_per_s(inference, game, changing, seconds)
    print(json.dumps({"game": game.name, "params": game.params(), "device": device.type,
                      "batch": batch, "fixed_batch_pos_per_s": round(fixed),
                      "changing_pos_per_s": round(changing_rate),
                      "changing_sizes": len(set(changing)),
                      "padded_sizes": len({padded_batch(n) for n in changing})}))


if __name__ == "__main__":
    main(sys.argv[1:])
