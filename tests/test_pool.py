"""The self-play pool's bounded memory and its shared inference service (on the CPU)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

from alphazero.mcts import SearchConfig
from alphazero.network import Inference, build_model
from alphazero.pool import WorkerSpec, weights_to_bytes
from alphazero.selfplay import SelfPlayConfig
from games import make_game

ROOT = Path(__file__).resolve().parents[1]

SLOW_TRAINER_SCRIPT = """
import os, sys, time
from alphazero.mcts import SearchConfig
from alphazero.network import build_model
from alphazero.pool import LocalPool, WorkerSpec, weights_to_bytes
from alphazero.selfplay import SelfPlayConfig
from games import make_game

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024

if __name__ == "__main__":
    shared = sys.argv[2] == "shared"
    game = make_game("connect4", rows=12, cols=12)  # long games, large records
    spec = WorkerSpec(game_name="connect4", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [2, 2, 2]}, device="cpu", precision="float32",
                      selfplay=SelfPlayConfig(simulations=2, games_in_parallel=64),
                      search=SearchConfig(), seed=0)
    pool = LocalPool(spec, workers=1, max_games_in_flight=int(sys.argv[1]), shared_inference=shared)
    pool.start(weights_to_bytes(build_model("cnn", game, channels=[2, 2, 2]).state_dict()))
    pool.collect(1)  # compiled and playing
    pids = [os.getpid(), pool.processes[0].pid]
    start = sum(map(rss_mb, pids))
    time.sleep(4)  # the trainer is busy elsewhere and reads nothing
    growth = sum(map(rss_mb, pids)) - start
    waiting = pool.permits[0].get_value() == 0  # every permit taken: the worker waits
    after = len(pool.collect(1)) > 0  # and goes on once games are read
    print(round(growth), waiting, after)
    pool.stop()
"""


def slow_trainer(tmp_path, bound: int, mode: str = "own") -> tuple[float, bool, bool]:
    script = tmp_path / "slow.py"
    script.write_text(SLOW_TRAINER_SCRIPT)
    result = subprocess.run([sys.executable, str(script), str(bound), mode], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    growth, waiting, after = result.stdout.split()
    return float(growth), waiting == "True", after == "True"


def test_a_slow_trainer_keeps_memory_flat(tmp_path):
    """With 8 games in flight at most, 4 seconds without reading add (almost) no memory to
    the trainer and the worker; with the bound out of reach the same 4 seconds pile up
    games, so the measure can tell the two apart."""
    growth, waiting, after = slow_trainer(tmp_path, 8)
    assert growth < 8 and waiting and after
    unbounded, waiting, _ = slow_trainer(tmp_path, 10**6)
    assert unbounded > 3 * max(growth, 4) and not waiting


def test_the_service_answers_as_the_network_does():
    """A batch evaluated by the inference service equals the same batch evaluated in place."""
    import multiprocessing as mp

    from alphazero.inference_service import RemoteEvaluator, SharedBlock, service_main

    game = make_game("othello")
    model = build_model("cnn", game, channels=[4, 4, 4])
    spec = WorkerSpec(game_name="othello", game_params=game.params(), model_kind="cnn",
                      model_sizes={"channels": [4, 4, 4]}, device="cpu", precision="float32",
                      selfplay=SelfPlayConfig(games_in_parallel=8), search=SearchConfig(), seed=0)
    context = mp.get_context("spawn")
    block = SharedBlock(context, 8, (game.planes, game.height, game.width), game.num_actions)
    service_end, worker_end = context.Pipe()
    weights, stop = context.Queue(), context.Event()
    weights.put(weights_to_bytes(model.state_dict()))
    counters = context.Array("q", 4)
    process = context.Process(target=service_main, daemon=True,
                              args=(spec, weights, [block], [service_end], counters, stop))
    process.start()
    try:
        rng = np.random.default_rng(0)
        planes = rng.integers(0, 2, (5, game.planes, game.height, game.width)).astype(np.float32)
        legal = rng.random((5, game.num_actions)) < 0.5
        legal[:, 0] = True
        worker_end.send((7, 5))  # an answer to a dead predecessor's request comes first
        remote = RemoteEvaluator(block, worker_end, first_request=100)
        priors, values = remote(planes, legal)
        expected = Inference(model, torch.device("cpu"), "float32")(planes, legal)
        np.testing.assert_allclose(priors, expected[0], atol=1e-6)
        np.testing.assert_allclose(values, expected[1], atol=1e-6)
        # both requests evaluated (together or apart), their time counted
        assert counters[0] == 10 and counters[1] in (1, 2) and counters[2] > 0
    finally:
        stop.set()
        process.join(timeout=5)


def test_shared_inference_pool_plays_games(tmp_path):
    """A worker on the inference service delivers games, and a slow trainer keeps it bounded."""
    growth, waiting, after = slow_trainer(tmp_path, 8, "shared")
    assert growth < 8 and waiting and after
