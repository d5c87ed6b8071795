"""A network's ONNX model compiled by OpenVINO for the CPU in bfloat16, without torch.

On a CPU with bfloat16 units (AVX512-BF16, AMX) OpenVINO runs these small convolutional
networks 1.5-1.9x ONNX Runtime's float32 from batch 64 on (AMD EPYC with AVX512-BF16), and
faster than torch's own bfloat16 (docs/performance.md, "Low precision"). It reads the same
ONNX model the float32 path runs (alphazero.nn.onnx_runtime.export_model). OpenVINO is
optional at run time: without it the float32 path stays (`available`).
"""
from __future__ import annotations

import functools
import sys

import numpy as np

from alphazero.nn.denormals import flush_denormals


def import_openvino():
    """The `openvino` module, imported without its usage telemetry: by default its import
    sends an event to Google Analytics from a process it forks, and a fork taken while
    another thread holds a lock (the engine starts in a thread) hangs, an orphan once the
    engine quits. Without `openvino_telemetry` OpenVINO takes its own no-op stub."""
    sys.modules.setdefault("openvino_telemetry", None)  # None: its import fails, the stub is used
    import openvino
    return openvino


@functools.cache
def available() -> bool:
    try:
        import_openvino()
    except ImportError:
        return False
    return True


@functools.cache
def _core():
    return import_openvino().Core()


class OpenVinoSession:
    """(log_policy, value) of an ONNX model for numpy batches, compiled in bfloat16."""

    def __init__(self, model: bytes, threads: int):
        core = _core()
        network = core.read_model(model=model, weights=b"")
        # LATENCY with one stream: one request at a time on the threads the product chose
        # (alphazero.config.threads). No pinning: OpenVINO pins its threads to cores by
        # default, and every process on the machine would pin to the same first core.
        # Subnormals flushed in its own threads, as run() does in the caller's.
        compiled = core.compile_model(network, "CPU", {
            "INFERENCE_PRECISION_HINT": "bf16", "INFERENCE_NUM_THREADS": threads,
            "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1, "ENABLE_CPU_PINNING": False,
            "CPU_DENORMALS_OPTIMIZATION": True})
        self.request = compiled.create_infer_request()

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flush_denormals()
        outputs = self.request.infer({"planes": np.ascontiguousarray(planes, dtype=np.float32),
                                      "legal": np.ascontiguousarray(legal, dtype=np.bool_)})
        log_policy, value = outputs.to_tuple()
        return log_policy, value
