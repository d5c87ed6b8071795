"""Which precision and runtime a network runs in on a CPU (`precision=auto`, the default).

A path is a (precision, runtime) pair that runs a network's ONNX model without torch:
float32 through ONNX Runtime (every CPU), bfloat16 through OpenVINO (a CPU with bfloat16
units: AVX512-BF16 or AMX), int8 through ONNX Runtime (an x86 CPU; fast with VNNI; the model
quantized by alphazero.nn.int8 on positions of the game, `Calibration`). `auto` takes the
fastest path on this machine whose answers agree with float32's, within TOLERANCE, on real
positions of the network's game: the leaves its shipped network's self-play search evaluated
(alphazero/nn/positions/, written by scripts/precision_positions.py), or positions of random
play for a game that has none. int8 is calibrated on the first half of them and checked on
the other half, so its check holds positions its quantization never saw.

A low-precision path pays a fixed cost per call that float32 does not (OpenVINO's at batch 1:
0.37-0.61x float32's positions/s), so the choice holds the batch size from which it is faster:
below it, float32 runs (a game against a person searches one position at a time, self-play
and matches many). The speeds are measured once per machine and network shape and cached on
disk (`speeds.json` in the cache folder); the accuracy check runs on every choice, with the
weights at hand (a few hundred positions: tens of milliseconds; int8 quantizes first, 0.1 s,
or reads the quantized model from the cache folder).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from alphazero.config.paths import CACHE_DIR
from alphazero.nn import int8, openvino_session
from alphazero.nn.onnx_session import OnnxRuntimeSession

POSITIONS_DIR = Path(__file__).with_name("positions")
FLOAT32 = ("float32", "onnxruntime")
BFLOAT16 = ("bfloat16", "openvino")
INT8 = ("int8", "onnxruntime")
PATH_NAMES = {FLOAT32: "float32 through ONNX Runtime", BFLOAT16: "bfloat16 through OpenVINO",
              INT8: "int8 through ONNX Runtime (first convolution and heads in float32)"}
BF16_FLAGS = {"avx512_bf16", "amx_bf16"}
INT8_FLAGS = {"avx512_vnni", "avx_vnni", "amx_int8"}  # named in the speed cache's key only
X86_MACHINES = {"x86_64", "amd64", "i386", "i686"}
INT8_FOLDER = "int8"  # in a cache folder: the quantized models of weights that do not change
# The largest difference from float32 a low-precision path may make on any one of the
# positions: |value| and the total variation of the priors (half the L1 distance). Chosen
# between what the low precisions measured on the shipped Connect6, Connect-4 and Othello
# networks: bfloat16 stays at about half of it or less (0.007-0.024 in value, 0.012-0.019
# in priors); int8 (ONNX Runtime, calibrated on real positions) with every layer quantized
# misses it everywhere (0.035-0.47, 0.047-0.061), with the first convolution and heads in
# float32 it passes on Othello (0.022, 0.018) and misses on Connect6 (0.053, 0.028) and
# classic Connect-4 (0.104, 0.040) (scripts/int8_quantized.py, docs/performance.md).
TOLERANCE = {"value": 0.05, "policy": 0.05}
SPEED_BATCHES = (1, 8, 64)  # the last one is self-play's and a match's (32-128 games at once)
SPEED_SECONDS = 0.2

Runner = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(eq=False)
class Calibration:
    """What the int8 path quantizes a model with: positions of the network's game (planes,
    legal), and the folder that keeps quantized models (None: quantized afresh each time, as
    a training run's weights change every round)."""
    planes: np.ndarray
    legal: np.ndarray
    cache: Path | None = None

    def quantize(self, model: bytes) -> bytes:
        if self.cache is None:
            return int8.quantized(model, self.planes, self.legal)
        return int8.cached_quantized(model, self.planes, self.legal, self.cache)


def cpu_runner(model: bytes, path: tuple[str, str], threads: int, from_batch: int = 1,
               calibration: Calibration | None = None) -> Runner:
    """A callable (planes, legal) -> (log_policy, value) running `model` on the CPU by `path`,
    for batches of at least `from_batch` positions (smaller ones run in float32). The int8
    path needs a `calibration`."""
    if path == FLOAT32:
        return OnnxRuntimeSession(model, threads)
    if path == BFLOAT16:
        low = openvino_session.OpenVinoSession(model, threads)
    elif path == INT8:
        if calibration is None:
            raise ValueError("the int8 path needs positions to calibrate on.")
        low = OnnxRuntimeSession(calibration.quantize(model), threads)
    else:
        raise ValueError(f"no CPU path runs {path[0]} through {path[1]}.")
    if from_batch <= 1:
        return low
    full = OnnxRuntimeSession(model, threads)
    return lambda planes, legal: (low if len(planes) >= from_batch else full)(planes, legal)


@functools.cache
def cpu_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


@functools.cache
def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@functools.cache
def x86() -> bool:
    return platform.machine().lower() in X86_MACHINES


def candidate_paths() -> list[tuple[str, str]]:
    """The CPU paths this machine may run fast: float32 always, bfloat16 where its units are
    and OpenVINO is installed, int8 on an x86 CPU (with VNNI it runs these networks about
    twice float32's speed; without, the speed measurement tells whether it pays)."""
    paths = [FLOAT32]
    if cpu_flags() & BF16_FLAGS and openvino_session.available():
        paths.append(BFLOAT16)
    if x86():
        paths.append(INT8)
    return paths


# --- positions ----------------------------------------------------------------------------

def save_positions(path: Path, game_name: str, planes: np.ndarray, legal: np.ndarray) -> Path:
    """Positions as a compressed file: planes (small whole numbers, as every game encodes
    them) as uint8, the legal mask packed to bits."""
    if not np.array_equal(planes, planes.astype(np.uint8)):
        raise ValueError("positions' planes must be whole numbers from 0 to 255.")
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, game=game_name, planes=planes.astype(np.uint8),
                        legal=np.packbits(legal, axis=1), actions=legal.shape[1])
    return path


def stored_positions(game_name: str, shape: tuple, actions: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The stored self-play positions of a network of this game and input shape, if any."""
    for path in sorted(POSITIONS_DIR.glob("*.npz")):
        with np.load(path) as data:
            if (str(data["game"]) == game_name and data["planes"].shape[1:] == tuple(shape)
                    and int(data["actions"]) == actions):
                legal = np.unpackbits(data["legal"], axis=1, count=actions).astype(np.bool_)
                return data["planes"].astype(np.float32), legal
    return None


def random_positions(game, count: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Positions of uniformly random play, for a game with no stored positions."""
    rng = np.random.default_rng(seed)
    planes, legal = [], []
    while len(planes) < count:
        state = game.new_state(rng)
        while game.status(state) == 0 and len(planes) < count:
            planes.append(game.encode(state))
            mask = game.legal_mask(state)
            legal.append(mask)
            game.play(state, int(rng.choice(np.flatnonzero(mask))))
    return np.stack(planes).astype(np.float32), np.stack(legal)


def check_positions(game) -> tuple[np.ndarray, np.ndarray, str]:
    """(planes, legal, where they come from) for the accuracy check of a network of `game`."""
    stored = stored_positions(game.name, (game.planes, game.height, game.width), game.num_actions)
    if stored is not None:
        return (*stored, f"{len(stored[0])} self-play positions")
    planes, legal = random_positions(game)
    return planes, legal, f"{len(planes)} positions of random play"


def halves(planes: np.ndarray, legal: np.ndarray) -> tuple[tuple, tuple]:
    """((planes, legal) of the first half, of the second) of the check positions: int8 is
    calibrated on the first and checked on the second."""
    half = len(planes) // 2
    return (planes[:half], legal[:half]), (planes[half:], legal[half:])


def calibration(game, cache: Path | None = None) -> Calibration:
    """The int8 path's calibration for a network of `game`: the first half of its check
    positions, quantized models kept in `cache` if given."""
    planes, legal, _ = check_positions(game)
    return Calibration(*halves(planes, legal)[0], cache)


def checked_positions(path: tuple[str, str], planes: np.ndarray,
                      legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The check positions `path` is checked on: all, but for int8 the half it was not
    calibrated on."""
    return halves(planes, legal)[1] if path == INT8 else (planes, legal)


def path_errors(model: bytes, path: tuple[str, str], game, threads: int) -> dict[str, float]:
    """`path`'s largest differences from float32 running `model`, a network of `game`, on
    the positions it is checked on (int8 quantized afresh on the game's `calibration`)."""
    planes, legal, _ = check_positions(game)  # read once: int8 calibrates on their first half
    calibrated = Calibration(*halves(planes, legal)[0])
    return differences(cpu_runner(model, FLOAT32, threads),
                       cpu_runner(model, path, threads, calibration=calibrated),
                       *checked_positions(path, planes, legal))


# --- accuracy and speed -------------------------------------------------------------------

def differences(reference: Runner, candidate: Runner, planes: np.ndarray,
                legal: np.ndarray) -> dict[str, float]:
    """The largest |value| difference and total variation of the priors over the positions."""
    log_p, value = reference(planes, legal)
    log_q, value_q = candidate(planes, legal)
    policy = 0.5 * np.abs(np.exp(log_p) - np.exp(log_q)).sum(axis=1)
    return {"value": float(np.abs(value - value_q).max()), "policy": float(policy.max())}


def within_tolerance(errors: dict[str, float]) -> bool:
    return all(errors[key] <= limit for key, limit in TOLERANCE.items())


def positions_per_second(runners: dict[str, Runner], planes: np.ndarray,
                         legal: np.ndarray) -> dict[str, float]:
    """Each runner's positions/s on a batch: its fastest call, the runners taking turns for
    about SPEED_SECONDS each. On a machine other jobs share, the fastest call is the one
    they disturbed least, and taking turns lets no burst of theirs fall on one runner alone."""
    fastest = {}
    for name, runner in runners.items():
        runner(planes, legal)  # warm-up: the first call prepares kernels
        fastest[name] = float("inf")
    deadline = time.perf_counter() + SPEED_SECONDS * len(runners)
    while time.perf_counter() < deadline:
        for name, runner in runners.items():
            began = time.perf_counter()
            runner(planes, legal)
            fastest[name] = min(fastest[name], time.perf_counter() - began)
    return {name: len(planes) / seconds for name, seconds in fastest.items()}


@dataclass
class Choice:
    precision: str
    runtime: str
    speedup: float              # positions/s against float32's at the largest batch measured
    errors: dict | None         # the largest differences from float32 (None: float32 itself)
    checked_on: str             # which positions the check used
    from_batch: int = 1         # smaller batches run in float32, faster there

    def describe(self) -> str:
        if self.errors is None:
            return f"network in float32 through ONNX Runtime ({cpu_name()}: {self.checked_on})"
        smaller = (f" (batches under {self.from_batch} in float32, faster there)"
                   if self.from_batch > 1 else "")
        return (f"network in {PATH_NAMES[self.precision, self.runtime]}{smaller}: "
                f"{self.speedup:.1f}x float32's positions/s at batch {SPEED_BATCHES[-1]} on "
                f"{cpu_name()}; on {self.checked_on} its values within "
                f"{self.errors['value']:.3f} and priors within {self.errors['policy']:.3f} of "
                "float32's")

    def precision_at(self, batch: int) -> str:
        """The precision a batch of this size runs in."""
        return self.precision if batch >= self.from_batch else "float32"


def choose(model: bytes, game, threads: int, cache: Path = CACHE_DIR,
           without: tuple = ()) -> Choice:
    """The fastest CPU path for the ONNX `model` of a network of `game` that agrees with
    float32 on the game's positions, other than the paths `without` (ones a training run saw
    leave the tolerance). `cache` keeps the speeds and int8's quantized models."""
    candidates = candidate_paths()
    if len(candidates) == 1:
        return Choice(*FLOAT32, 1.0, None, "no faster path on this CPU")
    planes, legal, checked_on = check_positions(game)
    calibrated = Calibration(*halves(planes, legal)[0], cache / INT8_FOLDER)
    reference = cpu_runner(model, FLOAT32, threads)
    speeds = _cached_speeds(model, game, threads, candidates, planes, legal, calibrated, cache)
    best = Choice(*FLOAT32, 1.0, None, f"no faster path agrees with float32 on {checked_on}")
    largest = str(SPEED_BATCHES[-1])
    for path in sorted(candidates[1:], key=lambda p: -speeds[p[0]][largest]):
        faster = [speeds[path[0]][str(b)] > speeds[FLOAT32[0]][str(b)] for b in SPEED_BATCHES]
        if not faster[-1]:
            break
        if path in without:
            continue
        checked = checked_positions(path, planes, legal)
        errors = differences(reference, cpu_runner(model, path, threads, calibration=calibrated),
                             *checked)
        if within_tolerance(errors):
            # from the smallest measured batch above every one where float32 was faster
            slower = [size for size, wins in zip(SPEED_BATCHES, faster) if not wins]
            from_batch = next(size for size in SPEED_BATCHES if size > max(slower)) if slower else 1
            on = (checked_on if len(checked[0]) == len(planes) else
                  f"the {len(checked[0])} of {checked_on} it was not calibrated on")
            return Choice(*path, speeds[path[0]][largest] / speeds[FLOAT32[0]][largest], errors,
                          on, from_batch)
    return best


def _cached_speeds(model: bytes, game, threads: int, candidates, planes, legal,
                   calibrated: Calibration, cache: Path) -> dict[str, dict[str, float]]:
    """Positions/s of each candidate path at each of SPEED_BATCHES (its precision -> batch as
    text -> positions/s) on this machine for this network's shape, measured once and kept in
    cache/speeds.json."""
    key = _speed_key(game, threads, candidates, model)
    file = cache / "speeds.json"
    try:
        known = json.loads(file.read_text())
    except (OSError, ValueError):
        known = {}
    if key not in known:
        runners = {path[0]: cpu_runner(model, path, threads, calibration=calibrated)
                   for path in candidates}
        known[key] = {precision: {} for precision in runners}
        for size in SPEED_BATCHES:
            rows = np.resize(np.arange(len(planes)), size)
            for precision, rate in positions_per_second(runners, planes[rows], legal[rows]).items():
                known[key][precision][str(size)] = rate
        try:
            cache.mkdir(parents=True, exist_ok=True)
            partial = file.with_name(f".{file.name}.{os.getpid()}")
            partial.write_text(json.dumps(known, indent=1))
            os.replace(partial, file)  # whole or not at all: other processes read it
        except OSError:
            pass  # measured again next time
    return known[key]


def _speed_key(game, threads: int, candidates, model: bytes) -> str:
    """This CPU, the candidate paths and the runtimes' versions, the network's input shape
    and its size in bytes (the same architecture, whatever its weights)."""
    import onnxruntime
    versions = [onnxruntime.__version__]
    if BFLOAT16 in candidates:
        versions.append(openvino_session.import_openvino().__version__)
    text = json.dumps([cpu_name(), sorted(cpu_flags() & (BF16_FLAGS | INT8_FLAGS)), candidates,
                       versions, threads, SPEED_BATCHES,
                       [game.planes, game.height, game.width, game.num_actions], len(model)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


_said: set[str] = set()


def say_once(choice: Choice) -> None:
    """The path chosen, once a process on stderr."""
    line = choice.describe()
    if line not in _said:
        _said.add(line)
        print(line, file=sys.stderr, flush=True)
