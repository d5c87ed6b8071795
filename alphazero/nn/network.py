"""Policy-value networks and batched inference on a device.

Both networks map encoded positions float32 [n, planes, height, width] to
(log_policy [n, num_actions], value [n]). Illegal actions, when a legal mask is given,
get a large negative logit before the log-softmax, so their probability is exactly zero
while their log-probability stays finite (0 * log p never turns into NaN in a loss).
"""
from __future__ import annotations

import statistics
import time

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from alphazero.nn import openvino_session, precision as precisions
from alphazero.nn.onnx_runtime import ExportedNetwork, export_model
from alphazero.config.devices import check_precision
from alphazero.nn.denormals import flush_denormals

ILLEGAL_LOGIT = -1e9
RUNTIMES = ("auto", "torch", "onnxruntime", "openvino")
EXPORTED_RUNTIMES = {"onnxruntime": ("float32", "int8"), "openvino": ("bfloat16",)}  # runtime: its precisions
_AUTOCAST_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def masked_log_softmax(logits: torch.Tensor, legal_mask: torch.Tensor | None) -> torch.Tensor:
    # float32 so that ILLEGAL_LOGIT stays finite even when the body ran in float16.
    logits = logits.float()
    if legal_mask is not None:
        logits = logits.masked_fill(~legal_mask, ILLEGAL_LOGIT)
    return F.log_softmax(logits, dim=1)


class PolicyValueNet(nn.Module):
    """The seed design: three shared 3x3 convolutions, a policy head and a value head, each
    head's 1x1 convolution followed by a batch norm (as AlphaZero's heads have)."""

    def __init__(self, planes: int, height: int, width: int, num_actions: int,
                 channels: tuple[int, ...] = (32, 64, 128), policy_channels: int = 4,
                 value_channels: int = 2, value_hidden: int = 64, global_pool: bool = False):
        super().__init__()
        layers, previous = [], planes
        for out_channels in channels:
            layers += [nn.Conv2d(previous, out_channels, 3, padding=1), nn.ReLU()]
            previous = out_channels
        if global_pool:
            layers.append(GlobalPoolBias(previous))
        self.body = nn.Sequential(*layers)
        cells = height * width
        # The heads squeeze the body's channels into 4 and 2: a ReLU there that goes negative
        # on every input (it happens within minutes at lr 0.002) stops that channel learning
        # for good. The batch norm before it recentres each channel on every batch, so about
        # half its inputs stay positive.
        self.policy_head = nn.Sequential(
            *_conv_bn(previous, policy_channels, 1), nn.ReLU(), nn.Flatten(),
            nn.Linear(policy_channels * cells, num_actions))
        self.value_head = nn.Sequential(
            *_conv_bn(previous, value_channels, 1), nn.ReLU(), nn.Flatten(),
            nn.Linear(value_channels * cells, value_hidden), nn.ReLU(),
            nn.Linear(value_hidden, 1), nn.Tanh())

    def forward(self, x: torch.Tensor,
                legal_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        return _heads(self, self.body(x), legal_mask)


class GlobalPoolBias(nn.Module):
    """KataGo's global pooling bias (Wu 2019): each channel's mean and maximum over the
    board, mapped to one bias per channel and added at every cell. A body of a few 3x3
    convolutions sees only nearby cells (the seed design's three: 7x7); this lets every
    cell's features depend on the whole board (a threat far away, how full it is) before
    the heads squeeze them to a few channels."""

    def __init__(self, channels: int):
        super().__init__()
        self.bias = nn.Linear(2 * channels, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)
        return F.relu(x + self.bias(pooled)[:, :, None, None])


def _heads(net: nn.Module, features: torch.Tensor,
           legal_mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """(log_policy, value) of the body's features."""
    log_policy = masked_log_softmax(net.policy_head(features), legal_mask)
    return log_policy, net.value_head(features).squeeze(1)


def _conv_bn(in_channels: int, out_channels: int, kernel: int) -> list[nn.Module]:
    # No conv bias: the batch norm that follows has its own shift.
    return [nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2, bias=False),
            nn.BatchNorm2d(out_channels)]


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.branch = nn.Sequential(*_conv_bn(channels, channels, 3), nn.ReLU(),
                                    *_conv_bn(channels, channels, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.branch(x))


class ResNet(nn.Module):
    """AlphaZero-style residual tower with batch norm, policy head and value head."""

    def __init__(self, planes: int, height: int, width: int, num_actions: int,
                 blocks: int = 6, channels: int = 64, global_pool: bool = False):
        super().__init__()
        layers = [*_conv_bn(planes, channels, 3), nn.ReLU(),
                  *[ResidualBlock(channels) for _ in range(blocks)]]
        if global_pool:
            layers.append(GlobalPoolBias(channels))
        self.body = nn.Sequential(*layers)
        cells = height * width
        self.policy_head = nn.Sequential(*_conv_bn(channels, 2, 1), nn.ReLU(), nn.Flatten(),
                                         nn.Linear(2 * cells, num_actions))
        self.value_head = nn.Sequential(*_conv_bn(channels, 1, 1), nn.ReLU(), nn.Flatten(),
                                        nn.Linear(cells, channels), nn.ReLU(),
                                        nn.Linear(channels, 1), nn.Tanh())

    def forward(self, x: torch.Tensor,
                legal_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        return _heads(self, self.body(x), legal_mask)


MODEL_KINDS = {"cnn": PolicyValueNet, "resnet": ResNet}


def build_model(kind: str, spec, **sizes) -> nn.Module:
    """A network for a game spec (anything with planes, height, width, num_actions)."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"unknown model kind '{kind}'; choose one of: {', '.join(MODEL_KINDS)}.")
    return MODEL_KINDS[kind](spec.planes, spec.height, spec.width, spec.num_actions, **sizes)


def resolve_runtime(runtime: str, device: torch.device, precision: str) -> str:
    """The runtime of a concrete precision: on a CPU float32 and int8 through ONNX Runtime
    and bfloat16 through OpenVINO where it is installed; torch elsewhere."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime '{runtime}'; choose one of: {', '.join(RUNTIMES)}.")
    if runtime == "auto":
        if device.type != "cpu":
            return "torch"
        if precision in EXPORTED_RUNTIMES["onnxruntime"]:
            return "onnxruntime"
        return "openvino" if openvino_session.available() else "torch"
    if runtime in EXPORTED_RUNTIMES and (device.type != "cpu"
                                         or precision not in EXPORTED_RUNTIMES[runtime]):
        raise ValueError(f"the {runtime} runtime runs {' or '.join(EXPORTED_RUNTIMES[runtime])} "
                         "on the CPU only.")
    if runtime == "torch" and precision == "int8":
        raise ValueError("int8 runs through ONNX Runtime only (runtime=auto or onnxruntime).")
    if runtime == "openvino" and not openvino_session.available():
        raise ValueError("the openvino runtime needs OpenVINO: pip install openvino.")
    return runtime


def resolve_precision(precision: str, model: nn.Module, game, device: torch.device,
                      batch: int | None = None):
    """(precision, the Choice that made it or None): `auto` on a CPU is the fastest path
    that agrees with float32 on the game's positions (alphazero.nn.precision), for batches of
    `batch` positions if given (self-play's); on CUDA float32 (bfloat16 and float16 ran these
    small networks slower on an H200)."""
    if precision != "auto":
        return precision, None
    if torch.device(device).type != "cpu":
        return "float32", None
    model = model.eval()
    onnx_model = export_model(model, (game.planes, game.height, game.width), game.num_actions)
    choice = precisions.choose(onnx_model, game, torch.get_num_threads())
    return (choice.precision if batch is None else choice.precision_at(batch)), choice


class Inference:
    """Evaluates batches of positions for the search: numpy in, numpy out.

    It puts the model on `device` and runs it in eval mode; if a trainer shares the model
    and left it in train mode, each call switches it back.

    On a CPU the model runs through its ONNX model by default (runtime="auto"): float32 and
    int8 by ONNX Runtime, bfloat16 by OpenVINO where it is installed
    (alphazero/nn/onnx_runtime.py); runtime="torch" keeps torch's own path. `precision` is a
    concrete one (resolve_precision turns `auto` into one); int8 is quantized on
    `calibration`'s positions (alphazero.nn.precision.calibration).

    On CUDA each batch is padded to one of a few sizes (`padded_batch`) and the network runs
    as a CUDA graph captured once per size: a network this small costs more to launch op by
    op from Python than to run, and cuDNN plans every new batch shape afresh. The graphs read
    the model's parameters in place, so weights loaded or trained later are what they use.
    """

    def __init__(self, model: nn.Module, device: torch.device, precision: str = "float32",
                 runtime: str = "auto", from_batch: int = 1,
                 calibration: precisions.Calibration | None = None):
        """`from_batch`: on a CPU, batches smaller than this run in float32 (a Choice's)."""
        self.device = torch.device(device)
        check_precision(precision, self.device.type)
        self.precision = precision
        self.runtime = resolve_runtime(runtime, self.device, self.precision)
        # channels_last is the layout oneDNN and cuDNN convolve fastest (about +30% on CPU).
        self.model = model.to(self.device, memory_format=torch.channels_last).eval()
        self.graphs: dict = {}  # (padded size, plane shape, actions) -> CapturedBatch
        self.graph_pool = None  # one memory pool for every graph: they never run at once
        self.onnx = (ExportedNetwork(self.model, (precision, self.runtime), from_batch, calibration)
                     if self.runtime in EXPORTED_RUNTIMES else None)

    def load_state_dict(self, state_dict: dict) -> None:
        self.model.load_state_dict(state_dict)

    def __call__(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """planes float32 [n, P, H, W], legal bool [n, A] -> (priors float32 [n, A] summing
        to 1 over the legal actions, values float32 [n] from the side to move's view)."""
        x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32))
        mask = torch.from_numpy(np.ascontiguousarray(legal, dtype=np.bool_))
        priors, values = torch.empty(mask.shape), torch.empty(len(mask))
        self.launch(x, mask, priors, values)
        if self.device.type == "cuda":
            torch.cuda.current_stream(self.device).synchronize()
        return priors.numpy(), values.numpy()

    def launch(self, planes: torch.Tensor, legal: torch.Tensor, priors: torch.Tensor,
               values: torch.Tensor) -> None:
        """Evaluate host tensors planes and legal into the host tensors priors and values.
        On CUDA it only queues the work (copies non-blocking; from page-locked host tensors
        they overlap) and returns at once: the caller synchronizes before it reads the
        answers or reuses the buffers. On a CPU the answers are there on return."""
        if self.model.training:
            self.model.eval()
        n = len(planes)
        if n == 0:
            return
        if self.onnx is not None:
            log_policy, value = self.onnx(planes.numpy(), legal.numpy())
            priors.copy_(torch.from_numpy(np.exp(log_policy)))
            values.copy_(torch.from_numpy(value))
            return
        with torch.inference_mode():
            if self.device.type != "cuda":
                flush_denormals()  # the calling thread's flag: a server's or worker's thread too
                out_priors, out_values = self._forward(planes, legal)
                priors.copy_(out_priors)
                values.copy_(out_values)
                return
            batch = self._captured(padded_batch(n), tuple(planes.shape[1:]), legal.shape[1])
            batch.planes[:n].copy_(planes, non_blocking=True)
            batch.legal[:n].copy_(legal, non_blocking=True)
            batch.graph.replay()
            priors.copy_(batch.priors[:n], non_blocking=True)
            values.copy_(batch.values[:n], non_blocking=True)

    def _forward(self, planes: torch.Tensor, legal: torch.Tensor,
                 capturing: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """(priors, values) of the model at this Inference's precision."""
        # autocast's weight cache would keep casts made at capture: a graph must cast afresh
        with torch.autocast(self.device.type, dtype=_AUTOCAST_DTYPES.get(self.precision),
                            enabled=self.precision in _AUTOCAST_DTYPES,
                            cache_enabled=not capturing):
            log_policy, value = self.model(planes.contiguous(memory_format=torch.channels_last),
                                           legal)
        return log_policy.exp(), value.float()

    def _captured(self, size: int, plane_shape: tuple, actions: int) -> CapturedBatch:
        key = (size, plane_shape, actions)
        if key not in self.graphs:
            batch = CapturedBatch(size, plane_shape, actions, self.device)
            # Warm up on a side stream (cuDNN picks its kernels), then record one call.
            side = torch.cuda.Stream(self.device)
            side.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(side):
                for _ in range(2):
                    self._forward(batch.planes, batch.legal, capturing=True)
            torch.cuda.current_stream(self.device).wait_stream(side)
            if self.graph_pool is None:
                self.graph_pool = torch.cuda.graph_pool_handle()
            with torch.cuda.graph(batch.graph, pool=self.graph_pool):
                batch.priors, batch.values = self._forward(batch.planes, batch.legal,
                                                           capturing=True)
            self.graphs[key] = batch
        return self.graphs[key]


class CapturedBatch:
    """One CUDA graph of the network at one batch size, and the device tensors it reads
    (planes, legal) and writes (priors, values). Rows past a call's batch keep what an
    earlier call left: legal rows are all legal at first and real masks after, so every
    row's softmax stays finite."""

    def __init__(self, size: int, plane_shape: tuple, actions: int, device: torch.device):
        self.graph = torch.cuda.CUDAGraph()
        self.planes = torch.zeros((size, *plane_shape), device=device)
        self.legal = torch.ones((size, actions), dtype=torch.bool, device=device)
        self.priors = self.values = None


def padded_batch(n: int) -> int:
    """n rounded up to a multiple of an eighth of its leading power of two: at most 12.5%
    more rows, and at most eight batch sizes per doubling. cuDNN builds an execution plan for
    every input shape it has not seen; a batch whose size changes every call pays for a new
    plan far more often than for a small network's arithmetic."""
    step = 1 << max(0, n.bit_length() - 4)
    return -(-n // step) * step


def median_call_seconds(call, seconds: float, warmup: int = 3) -> float:
    """Median wall time of `call()` over repeated calls for about `seconds`, after a
    warm-up. The median, not the mean, so a neighbour's burst on shared cores does not
    skew a benchmark."""
    for _ in range(warmup):
        call()
    timings, deadline = [], time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(timings) < 3:
        start = time.perf_counter()
        call()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def measure_inference(model: nn.Module, spec, batch: int, precision: str = "float32",
                      seconds: float = 1.0, runtime: str = "auto") -> float:
    """Positions per second that Inference evaluates on the model's device, on random
    0/1 planes with every action legal."""
    inference = Inference(model, next(model.parameters()).device, precision, runtime,
                          calibration=calibration_for(precision, spec))
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (batch, spec.planes, spec.height, spec.width)).astype(np.float32)
    legal = np.ones((batch, spec.num_actions), dtype=np.bool_)
    return batch / median_call_seconds(lambda: inference(planes, legal), seconds)


def build_inference(kind: str, game, sizes: dict, device: torch.device, precision: str,
                    weights: dict | None = None, runtime: str = "auto") -> Inference:
    """A `kind` network of `sizes` for `game` on `device`, with `weights` (a state dict) if
    given, ready for the search: every place that runs a network builds it here. `auto`
    precision is chosen with these weights and said once on stderr; `runtime` as Inference
    takes it."""
    model = build_model(kind, game, **sizes)
    if weights is not None:
        model.load_state_dict(weights)
    precision, choice = resolve_precision(precision, model, game, device)
    if choice is not None:
        precisions.say_once(choice)
    return Inference(model.to(device), device, precision, runtime,
                     from_batch=choice.from_batch if choice else 1,
                     calibration=calibration_for(precision, game))


def calibration_for(precision: str, game) -> precisions.Calibration | None:
    """What a network of `game` in `precision` is quantized with: int8's calibration (a
    training run's weights change every round: quantized afresh, not cached), else none."""
    return precisions.calibration(game) if precision == "int8" else None


def checkpoint_inference(saved: dict, game, device: torch.device, precision: str = "float32",
                         runtime: str = "auto") -> Inference:
    """A loaded checkpoint's network (alphazero.nn.checkpoint.load), ready for the search."""
    return build_inference(saved["model_kind"], game, saved["model_sizes"], device, precision,
                           saved["model"], runtime)
