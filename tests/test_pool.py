"""The self-play pool's bounded memory and its shared inference service (on the CPU, and
on CUDA where there is one)."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from alphazero.search.puct import SearchConfig
from alphazero.nn.network import Inference, build_model
from alphazero.nn.checkpoint import weights_to_bytes
from alphazero.workers.pool import LocalPool, SelfPlayStopped, WorkerSpec
from alphazero.config.settings import default_config
from alphazero.workers.selfplay import SelfPlayConfig
from games import make_game

pytestmark = pytest.mark.integration  # worker processes

ROOT = Path(__file__).resolve().parents[1]

SLOW_TRAINER_SCRIPT = """
import os, sys, time
from alphazero.config.settings import default_config
from alphazero.search.puct import SearchConfig
from alphazero.nn.network import build_model
from alphazero.nn.checkpoint import weights_to_bytes
from alphazero.workers.pool import LocalPool, WorkerSpec
from alphazero.workers.selfplay import SelfPlayConfig
from games import make_game

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024

if __name__ == "__main__":
    shared = sys.argv[1] == "shared"
    game = make_game("connect4", rows=12, cols=12)  # long games, large records
    spec = WorkerSpec(game_name="connect4", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [2, 2, 2]}, device="cpu", precision="float32",
                      selfplay=SelfPlayConfig.from_cfg(default_config(), simulations=2, games_in_parallel=64),
                      search=SearchConfig.from_cfg(default_config().mcts), seed=0)
    for bound in map(int, sys.argv[2:]):  # a pool and its worker process for each bound
        pool = LocalPool(spec, workers=1, max_games_in_flight=bound, shared_inference=shared)
        pool.start(weights_to_bytes(build_model("cnn", game, channels=[2, 2, 2]).state_dict()))
        pool.collect(1)  # compiled and playing
        pids = [os.getpid(), pool.processes[0].pid]
        start, began = sum(map(rss_mb, pids)), time.monotonic()
        while True:  # the trainer is busy elsewhere and reads nothing: 4 s, or up to 15 s
            time.sleep(0.5)  # while a worker that does not wait has not yet piled up 24 MB
            growth = sum(map(rss_mb, pids)) - start
            waiting = pool.permits[0].get_value() == 0  # every permit taken: the worker waits
            seconds = time.monotonic() - began
            if seconds >= 15 or (seconds >= 4 and (waiting or growth > 24)):
                break
        after = len(pool.collect(1)) > 0  # and goes on once games are read
        print(round(growth), waiting, after)
        pool.stop()
"""


def slow_trainer(tmp_path, *bounds: int, mode: str = "own") -> list[tuple[float, bool, bool]]:
    """Per bound on the games in flight, one after the other in one trainer process: its and
    its worker's memory growth over 4-15 seconds without reading, whether the worker then waited,
    and whether games came once read."""
    script = tmp_path / "slow.py"
    script.write_text(SLOW_TRAINER_SCRIPT)
    result = subprocess.run([sys.executable, str(script), mode, *map(str, bounds)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    return [(float(growth), waiting == "True", after == "True") for growth, waiting, after in rows]


def test_a_slow_trainer_keeps_memory_flat(tmp_path):
    """With 8 games in flight at most, 4 seconds without reading add (almost) no memory to
    the trainer and the worker; with the bound out of reach games pile up (given up to 15
    seconds on a loaded machine), so the measure can tell the two apart."""
    (growth, waiting, after), (unbounded, unbounded_waiting, _) = slow_trainer(tmp_path, 8, 10**6)
    assert growth < 8 and waiting and after
    assert unbounded > 3 * max(growth, 4) and not unbounded_waiting


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_the_service_answers_as_the_network_does(device):
    """Batches of three workers asking at once, evaluated by the inference service (on CUDA
    two padded batches in flight), equal the same batches evaluated in place, and each answer
    names the version of the weights that gave it."""
    import multiprocessing as mp
    import threading

    from alphazero.workers.inference_service import RemoteEvaluator, SharedBlock, service_main

    game = make_game("othello")
    model = build_model("cnn", game, channels=[4, 4, 4])
    spec = WorkerSpec(game_name="othello", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [4, 4, 4]}, device=device, precision="float32",
                      selfplay=SelfPlayConfig.from_cfg(default_config(), games_in_parallel=8),
                      search=SearchConfig.from_cfg(default_config().mcts), seed=0)
    context = mp.get_context("spawn")
    blocks = [SharedBlock(context, 8, (game.planes, game.height, game.width), game.num_actions)
              for _ in range(3)]
    pipes = [context.Pipe() for _ in blocks]
    weights, stop = context.Queue(), context.Event()
    weights.put((3, weights_to_bytes(model.state_dict())))
    counters = context.Array("q", 4)
    process = context.Process(target=service_main, daemon=True,
                              args=(spec, weights, blocks, [a for a, _ in pipes], counters, stop))
    process.start()
    expected_model = Inference(model, torch.device("cpu"), "float32")
    errors, sizes = [], [5, 8, 1, 7, 3, 6]

    def worker(i: int) -> None:
        rng = np.random.default_rng(i)
        remote = RemoteEvaluator(blocks[i], pipes[i][1], first_request=100)
        for n in sizes:
            planes = rng.integers(0, 2, (n, game.planes, game.height, game.width)).astype(np.float32)
            legal = rng.random((n, game.num_actions)) < 0.5
            legal[:, 0] = True
            priors, values = remote(planes, legal)
            assert remote.version == 3
            expected = expected_model(planes, legal)
            errors.append(max(np.abs(priors - expected[0]).max(), np.abs(values - expected[1]).max()))

    try:
        pipes[0][1].send((7, 5))  # an answer to a dead predecessor's request comes first
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(errors) == 3 * len(sizes) and max(errors) < 1e-5
        # every request evaluated (several in one call where they met), its time counted
        assert counters[0] == 5 + 3 * sum(sizes) and 1 <= counters[1] <= 1 + 3 * len(sizes)
        assert counters[2] > 0
    finally:
        stop.set()
        process.join(timeout=5)


def test_shared_inference_pool_plays_games(tmp_path):
    """A worker on the inference service delivers games, and a slow trainer keeps it bounded."""
    (growth, waiting, after), = slow_trainer(tmp_path, 8, mode="shared")
    assert growth < 8 and waiting and after


@pytest.mark.parametrize("signalled", ["worker", "service"])
def test_a_signalled_worker_or_service_stops_the_pool(signalled):
    """A signal to the whole run (Ctrl-C, `timeout`) reaches the pool's processes too: the one
    signalled stops the pool and exits, and collecting says so, where the pool used to
    restart a killed worker and give up on a killed service with an error."""
    game = make_game("connect4", rows=6, cols=7)
    spec = WorkerSpec(game_name="connect4", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [2, 2, 2]}, device="cpu", precision="float32",
                      selfplay=SelfPlayConfig.from_cfg(default_config(), simulations=2,
                                                       games_in_parallel=4),
                      search=SearchConfig.from_cfg(default_config().mcts), seed=0)
    shared = signalled == "service"
    pool = LocalPool(spec, workers=1, max_games_in_flight=8, shared_inference=shared)
    pool.start(weights_to_bytes(build_model("cnn", game, channels=[2, 2, 2]).state_dict()))
    try:
        assert pool.collect(1)  # compiled and playing
        process = pool.processes[0] if signalled == "worker" else pool.service.process
        os.kill(process.pid, signal.SIGTERM)
        process.join(timeout=30)
        assert process.exitcode == 0  # it stopped; it was not killed
        with pytest.raises(SelfPlayStopped):
            pool.collect(10**9)
    finally:
        pool.stop()
    assert pool.workers_alive == 0 and not (shared and pool.service.process.is_alive())
