"""A network's ONNX model quantized to int8 by ONNX Runtime: static quantization in QDQ form,
weights per output channel, activations calibrated on positions of the network's game, with
the first convolution and both heads kept in float32 (`FLOAT_ENDS`).

Why those stay float32: the first convolution's output has the widest range of any layer,
and the heads squeeze the body into a few numbers each, where one rounding step moves a
value or a prior most. With them in float32 the shipped Othello network stays within
precision.TOLERANCE of float32 at 2.3x its positions/s; with them in int8 no shipped network
does (docs/performance.md, "Low precision").

Quantizing takes 0.1 s for the Othello network on 256 positions (AMD EPYC, one loaded core),
so a training run quantizes afresh after every round; `cached_quantized` keeps the models of
weights that do not change (a checkpoint's, for play and the engine) on disk.
"""
from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import numpy as np

from alphazero.nn import checkpoint

CALIBRATION_BATCH = 32
# the exported network's nodes kept in float32 (alphazero.nn.onnx_runtime.export_model names
# them by module): the first convolution of the body and both heads
FLOAT_ENDS = ("/body/body.0/", "/value_head/", "/policy_head/")
MOST_KEPT = 32  # quantized models kept on disk, the ones used last


def quantized(model: bytes, planes: np.ndarray, legal: np.ndarray, float_ends: bool = True) -> bytes:
    """The int8 model of the float32 ONNX `model`, calibrated on the positions (planes,
    legal); `float_ends=False` quantizes every layer (scripts/int8_quantized.py measures it)."""
    # imported here: onnx and the quantizer take a second to import, which a start that
    # finds its model cached does not need
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Positions(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"planes": planes[i:i + CALIBRATION_BATCH],
                                  "legal": legal[i:i + CALIBRATION_BATCH]}
                                 for i in range(0, len(planes), CALIBRATION_BATCH)])

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as folder:
        plain, prepared, out = (Path(folder) / name for name in ("m.onnx", "p.onnx", "q.onnx"))
        plain.write_bytes(model)
        quant_pre_process(str(plain), str(prepared), skip_symbolic_shape=True)
        nodes = [node.name for node in onnx.load(str(prepared)).graph.node]
        kept = [name for name in nodes if name.startswith(FLOAT_ENDS)] if float_ends else []
        quantize_static(str(prepared), str(out), Positions(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, nodes_to_exclude=kept)
        return out.read_bytes()


def cached_quantized(model: bytes, planes: np.ndarray, legal: np.ndarray, folder: Path) -> bytes:
    """`quantized(model, planes, legal)`, kept in `folder` by a hash of everything it depends
    on (the float32 model's bytes, the positions, ONNX Runtime's version, this code)."""
    import onnxruntime
    digest = hashlib.sha256(model)
    for part in (planes.tobytes(), legal.tobytes(), onnxruntime.__version__.encode(),
                 Path(__file__).read_bytes()):
        digest.update(part)
    file = folder / f"{digest.hexdigest()[:32]}.onnx"
    try:
        data = file.read_bytes()
        file.touch()  # used now: the models used last are kept
        return data
    except OSError:
        pass
    data = quantized(model, planes, legal)
    try:
        checkpoint.save_bytes_atomic(data, file)
        for old in sorted(folder.glob("*.onnx"), key=lambda f: f.stat().st_mtime)[:-MOST_KEPT]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a folder that cannot be written: quantized again next time
    return data
