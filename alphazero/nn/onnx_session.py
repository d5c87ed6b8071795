"""A network's ONNX model run by ONNX Runtime on the CPU, without torch: the float32 session
every network here can run in on a CPU, and `OnnxInference`, a model of the network cache
(alphazero.nn.network_cache) as the search calls it, on the path `precision=auto` chooses
(alphazero.nn.precision).

The model takes `planes` float32 [n, P, H, W] and `legal` bool [n, A] and gives `log_policy`
float32 [n, A] and `value` float32 [n] (alphazero.nn.onnx_runtime exports it).
"""
from __future__ import annotations

import numpy as np
import onnxruntime

from alphazero.nn.denormals import flush_denormals


def cpu_session(model: bytes, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads  # the product's choice (alphazero.config.threads)
    options.inter_op_num_threads = 1
    # Idle threads sleep rather than spin: a spinning pool stalls the other processes on
    # these cores, as torch's did (alphazero.config.threads).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Subnormal activations are many times slower to compute on: the session's own threads
    # flush them to zero, and run() the calling thread's (alphazero.nn.denormals).
    options.add_session_config_entry("session.set_denormal_as_zero", "1")
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def run(session: onnxruntime.InferenceSession, planes: np.ndarray,
        legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log_policy, value) of a network's session, computed with subnormals flushed in this
    thread (the web board's worker threads call it too)."""
    flush_denormals()
    log_policy, value = session.run(None, {"planes": np.ascontiguousarray(planes, dtype=np.float32),
                                           "legal": np.ascontiguousarray(legal, dtype=np.bool_)})
    return log_policy, value


class OnnxRuntimeSession:
    """(log_policy, value) of an ONNX model for numpy batches, in float32."""

    def __init__(self, model: bytes, threads: int):
        self.session = cpu_session(model, threads)

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return run(self.session, planes, legal)


class OnnxInference:
    """Evaluates batches of positions for the search, as alphazero.nn.network.Inference does
    on a CPU: numpy in, numpy out. `runner` runs the model (alphazero.nn.precision.cpu_runner)."""

    def __init__(self, runner, precision: str = "float32", runtime: str = "onnxruntime"):
        self.runner, self.precision, self.runtime = runner, precision, runtime

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """planes float32 [n, P, H, W], legal bool [n, A] -> (priors float32 [n, A] summing
        to 1 over the legal actions, values float32 [n] from the side to move's view)."""
        if len(planes) == 0:
            return np.zeros(legal.shape, np.float32), np.zeros(0, np.float32)
        log_policy, value = self.runner(planes, legal)
        return np.exp(log_policy), value
