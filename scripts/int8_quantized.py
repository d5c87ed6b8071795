"""int8 against the low-precision check: a shipped network quantized as `precision=auto`'s
int8 path quantizes it (alphazero.nn.int8: static, QDQ, weights per channel, activations
calibrated on the first half of the game's stored self-play positions), its positions/s
beside float32 and OpenVINO's bfloat16 at batch 64, and its largest differences from float32
on the other half (alphazero.nn.precision).

    python scripts/int8_quantized.py [NAME ...] [--every-layer]
        # shipped networks; default: connect6 connect4_classic othello. --every-layer
        # quantizes the first convolution and both heads too (the product keeps them float32)

Where int8 passes the check and where it misses: docs/performance.md, "Low precision".
"""
from __future__ import annotations

import json
import sys

import numpy as np
import torch

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.nn import checkpoint, int8, precision
from alphazero.nn.network import build_model
from alphazero.nn.onnx_runtime import export_model
from games import make_game


def measure(name: str, float_ends: bool = True) -> dict:
    torch.set_num_threads(1)
    saved = checkpoint.load(PRETRAINED_DIR / f"{name}.pt")
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    model.eval()
    onnx_model = export_model(model, (game.planes, game.height, game.width), game.num_actions)
    planes, legal, _ = precision.check_positions(game)
    calibration = precision.calibration(game)
    checked = precision.checked_positions(precision.INT8, planes, legal)
    runners = {"float32": precision.cpu_runner(onnx_model, precision.FLOAT32, 1),
               "int8": precision.OnnxRuntimeSession(int8.quantized(
                   onnx_model, calibration.planes, calibration.legal, float_ends), 1)}
    if precision.BFLOAT16 in precision.candidate_paths():
        runners["bfloat16"] = precision.cpu_runner(onnx_model, precision.BFLOAT16, 1)
    rows = np.resize(np.arange(len(planes)), 64)
    rates = precision.positions_per_second(runners, planes[rows], legal[rows])
    errors = {path: precision.differences(runners["float32"], runner, *checked)
              for path, runner in runners.items() if path != "float32"}
    return {"network": name, "cpu": precision.cpu_name(), "float_ends": float_ends, "positions_per_s": {k: round(v) for k, v in rates.items()},
            "largest_differences": {k: {m: round(x, 3) for m, x in e.items()} for k, e in errors.items()}}


if __name__ == "__main__":
    float_ends = "--every-layer" not in sys.argv
    names = [word for word in sys.argv[1:] if word != "--every-layer"]
    for name in names or ["connect6", "connect4_classic", "othello"]:
        print(json.dumps(measure(name, float_ends)), flush=True)
