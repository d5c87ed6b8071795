"""A torch network run on the CPU through its ONNX model: in float32 by ONNX Runtime, which
convolves these small nets faster than torch's float32 path (1.4-1.6x at batches of 1 to 256
on one thread, self-play 1.4x; docs/performance.md, "The network on a CPU through ONNX
Runtime"), in bfloat16 by OpenVINO (alphazero.nn.openvino_session), or in int8 by ONNX
Runtime (alphazero.nn.int8).

The model is exported afresh whenever its weights change (tensors' version counters tell:
an optimizer step, load_state_dict and batch-norm statistics all bump them), which takes
about 30 ms for these nets (int8 quantizes it afresh too, about 0.1 s more), so callers keep using the torch module as the one source of
truth: train it, load weights into it, and this follows. `export_model` is the one export:
the network cache (alphazero.nn.network_cache) and `python -m alphazero.export` write its
model too.
"""
from __future__ import annotations

import io
import itertools
import threading
import warnings

import numpy as np
import torch
from torch import nn

from alphazero.nn.precision import FLOAT32, Calibration, cpu_runner

OPSET = 18
INPUTS, OUTPUTS = ("planes", "legal"), ("log_policy", "value")


class ExportedNetwork:
    """(log_policy, value) of `model`'s current weights for numpy batches, on the CPU by
    `path` (alphazero.nn.precision: float32 or int8 through ONNX Runtime, bfloat16 through
    OpenVINO; int8 quantized with `calibration`)."""

    def __init__(self, model: nn.Module, path: tuple[str, str] = FLOAT32, from_batch: int = 1,
                 calibration: Calibration | None = None):
        self.model = model
        self.path = path
        self.from_batch = from_batch  # smaller batches run in float32 (alphazero.nn.precision)
        self.calibration = calibration
        self.session = None
        self.weights_version = None
        self.exporting = threading.Lock()  # the exporter traces the model: one thread at a time

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """planes float32 [n, P, H, W], legal bool [n, A] -> (log_policy float32 [n, A],
        value float32 [n])."""
        with self.exporting:
            version = _weights_version(self.model)
            if self.session is None or version != self.weights_version:
                model = export_model(self.model, planes.shape[1:], legal.shape[1])
                self.session = cpu_runner(model, self.path, torch.get_num_threads(),
                                          self.from_batch, self.calibration)
                self.weights_version = version
            session = self.session
        return session(planes, legal)


def _weights_version(model: nn.Module) -> tuple:
    # id() as well: a tensor replaced (model.to, a new Parameter) starts its count afresh.
    return tuple((id(t), t._version) for t in itertools.chain(model.parameters(), model.buffers()))


def export_model(model: nn.Module, plane_shape: tuple, actions: int) -> bytes:
    """The serialized ONNX model of `model` (in eval mode, any batch size)."""
    example = (torch.zeros(1, *plane_shape), torch.ones(1, actions, dtype=torch.bool))
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.inference_mode(False):
        # The TorchScript exporter, not the dynamo one: 30 ms against 3.5 s (and 10 s of
        # imports), which matters when a training run re-exports after every round. Its
        # deprecation notice is ours.
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=OPSET,
                          training=torch.onnx.TrainingMode.EVAL,
                          input_names=list(INPUTS), output_names=list(OUTPUTS),
                          dynamic_axes={name: {0: "batch"} for name in INPUTS + OUTPUTS})
    return buffer.getvalue()
