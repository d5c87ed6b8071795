"""int8 against the low-precision check: a shipped network quantized by ONNX Runtime (static,
QDQ, weights per channel, activations calibrated on the first half of the game's stored
self-play positions), its positions/s beside float32 and OpenVINO's bfloat16 at batch 64,
and its largest differences from float32 on the other half (alphazero.nn.precision).

    python scripts/int8_quantized.py [NAME ...] [--float-ends]
        # shipped networks; default: connect6 connect4_classic othello. --float-ends keeps the
        # first convolution and both heads in float32 (the body's other layers int8)

Why int8 is not among `precision=auto`'s paths: docs/performance.md, "Low precision".
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.nn import checkpoint, precision
from alphazero.nn.network import build_model
from alphazero.nn.onnx_runtime import export_model
from games import make_game

CALIBRATION_BATCH = 32
# the exported network's nodes that --float-ends keeps in float32: the first convolution
# (its inputs are exact in int8, its output's range the widest) and both heads
FLOAT_ENDS = ("/body/body.0/", "/value_head/", "/policy_head/")


class Positions(CalibrationDataReader):
    def __init__(self, planes: np.ndarray, legal: np.ndarray):
        self.batches = iter([{"planes": planes[i:i + CALIBRATION_BATCH], "legal": legal[i:i + CALIBRATION_BATCH]}
                             for i in range(0, len(planes), CALIBRATION_BATCH)])

    def get_next(self):
        return next(self.batches, None)


def quantized(model: bytes, planes: np.ndarray, legal: np.ndarray, float_ends: bool) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        plain, prepared, out = (Path(folder) / name for name in ("m.onnx", "p.onnx", "q.onnx"))
        plain.write_bytes(model)
        quant_pre_process(str(plain), str(prepared), skip_symbolic_shape=True)
        nodes = [node.name for node in onnx.load(str(prepared)).graph.node]
        kept = [name for name in nodes if name.startswith(FLOAT_ENDS)] if float_ends else []
        quantize_static(str(prepared), str(out), Positions(planes, legal), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=kept)
        return out.read_bytes()


def measure(name: str, float_ends: bool = False) -> dict:
    torch.set_num_threads(1)
    saved = checkpoint.load(PRETRAINED_DIR / f"{name}.pt")
    game = make_game(saved["game"], **saved["game_params"])
    model = build_model(saved["model_kind"], game, **saved["model_sizes"])
    model.load_state_dict(saved["model"])
    model.eval()
    onnx_model = export_model(model, (game.planes, game.height, game.width), game.num_actions)
    planes, legal, _ = precision.check_positions(game)
    half = len(planes) // 2
    runners = {"float32": precision.cpu_runner(onnx_model, precision.FLOAT32, 1),
               "int8": precision.OnnxRuntimeSession(quantized(onnx_model, planes[:half], legal[:half],
                                                           float_ends), 1)}
    if precision.BFLOAT16 in precision.candidate_paths():
        runners["bfloat16"] = precision.cpu_runner(onnx_model, precision.BFLOAT16, 1)
    rows = np.resize(np.arange(len(planes)), 64)
    rates = precision.positions_per_second(runners, planes[rows], legal[rows])
    errors = {path: precision.differences(runners["float32"], runner, planes[half:], legal[half:])
              for path, runner in runners.items() if path != "float32"}
    return {"network": name, "cpu": precision.cpu_name(), "float_ends": float_ends, "positions_per_s": {k: round(v) for k, v in rates.items()},
            "largest_differences": {k: {m: round(x, 3) for m, x in e.items()} for k, e in errors.items()}}


if __name__ == "__main__":
    float_ends = "--float-ends" in sys.argv
    names = [word for word in sys.argv[1:] if word != "--float-ends"]
    for name in names or ["connect6", "connect4_classic", "othello"]:
        print(json.dumps(measure(name, float_ends)), flush=True)
