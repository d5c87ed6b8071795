"""A torch network run on the CPU by ONNX Runtime, which convolves these small nets faster
than torch's float32 path: 1.4-1.6x at batches of 1 to 256 on one thread, self-play 1.4x
(docs/performance.md, "The network on a CPU through ONNX Runtime").

The model is exported afresh whenever its weights change (tensors' version counters tell:
an optimizer step, load_state_dict and batch-norm statistics all bump them), which takes
about 30 ms for these nets, so callers keep using the torch module as the one source of
truth: train it, load weights into it, and this follows.
"""
from __future__ import annotations

import io
import itertools
import threading
import warnings

import numpy as np
import onnxruntime
import torch
from torch import nn


class OnnxRuntimeNetwork:
    """(log_policy, value) of `model`'s current weights for numpy batches, on the CPU."""

    def __init__(self, model: nn.Module):
        self.model = model
        self.session = None
        self.weights_version = None
        self.exporting = threading.Lock()  # the exporter traces the model: one thread at a time

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """planes float32 [n, P, H, W], legal bool [n, A] -> (log_policy float32 [n, A],
        value float32 [n])."""
        with self.exporting:
            version = _weights_version(self.model)
            if self.session is None or version != self.weights_version:
                self.session = _session(self.model, planes.shape[1:], legal.shape[1])
                self.weights_version = version
            session = self.session
        log_policy, value = session.run(None, {"planes": planes, "legal": legal})
        return log_policy, value


def _weights_version(model: nn.Module) -> tuple:
    # id() as well: a tensor replaced (model.to, a new Parameter) starts its count afresh.
    return tuple((id(t), t._version) for t in itertools.chain(model.parameters(), model.buffers()))


def _session(model: nn.Module, plane_shape: tuple, actions: int) -> onnxruntime.InferenceSession:
    example = (torch.zeros(1, *plane_shape), torch.ones(1, actions, dtype=torch.bool))
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.inference_mode(False):
        # The TorchScript exporter, not the dynamo one: 30 ms against 3.5 s, which matters
        # when a training run re-exports after every round. Its deprecation notice is ours.
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False,
                          training=torch.onnx.TrainingMode.EVAL,
                          input_names=["planes", "legal"], output_names=["log_policy", "value"],
                          dynamic_axes={name: {0: "batch"} for name in
                                        ("planes", "legal", "log_policy", "value")})
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()  # the product's choice (threads.py)
    options.inter_op_num_threads = 1
    # Idle threads sleep rather than spin: a spinning pool stalls the other processes on
    # these cores, as torch's did (threads.py).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Subnormal activations are many times slower to compute on; as flush_denormals does.
    options.add_session_config_entry("session.set_denormal_as_zero", "1")
    return onnxruntime.InferenceSession(buffer.getvalue(), options,
                                        providers=["CPUExecutionProvider"])
