"""Network positions/s at one batch size, and at sizes that change every call as the inference
service's do, unpadded and padded to `alphazero.network.padded_batch`'s few sizes.

    python bench/batch_shapes.py game=connect4 rows=6 cols=7 [batch=3600] [seconds=3]

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

from alphazero.network import Inference, build_model, padded_batch, select_device
from games import make_game


def positions_per_s(inference, game, sizes, seconds: float, asked=None) -> float:
    """Positions per second over calls of the given sizes in turn; `asked` (default: the
    sizes) are the positions each call counts, the rest being padding."""
    asked = sizes if asked is None else asked
    rng = np.random.default_rng(0)
    largest = max(sizes)
    planes = rng.integers(0, 2, (largest, game.planes, game.height, game.width)).astype(np.float32)
    legal = np.ones((largest, game.num_actions), dtype=np.bool_)
    inference(planes[:sizes[0]], legal[:sizes[0]])  # the other shapes come new, as in a run
    done, began, k = 0, time.perf_counter(), 0
    while time.perf_counter() - began < seconds:
        n = sizes[k % len(sizes)]
        inference(planes[:n], legal[:n])
        done, k = done + asked[k % len(sizes)], k + 1
    return done / (time.perf_counter() - began)


def main(args: list[str]) -> None:
    options = dict(a.split("=", 1) for a in args)
    batch, seconds = int(options.pop("batch", 3600)), float(options.pop("seconds", 3))
    game = make_game(options.pop("game"), **{k: json.loads(v) for k, v in options.items()})
    device = select_device("auto")
    torch.set_num_threads(1)
    inference = Inference(build_model("cnn", game).to(device), device, "float32")
    changing = np.random.default_rng(0).integers(batch // 2, 3 * batch // 2 + 1, 10_000).tolist()
    padded = [padded_batch(n) for n in changing]
    fixed = positions_per_s(inference, game, [batch], seconds)
    unpadded = positions_per_s(inference, game, changing, seconds)
    padded_rate = positions_per_s(inference, game, padded, seconds, asked=changing)
    print(json.dumps({"game": game.name, "params": game.params(), "device": device.type,
                      "batch": batch, "fixed_batch_pos_per_s": round(fixed),
                      "changing_pos_per_s": round(unpadded),
                      "changing_padded_pos_per_s": round(padded_rate),
                      "padded_sizes": len(set(padded)), "changing_sizes": len(set(changing))}))


if __name__ == "__main__":
    main(sys.argv[1:])
