"""Self-play on Ray: the same run and artefacts as the local pool; a killed actor is replaced."""
import subprocess
import sys

import pytest
import ray
import torch
from hydra import compose, initialize_config_dir

from alphazero.config.schema import register
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from alphazero.train import game_log
from alphazero.workers.ray_pool import RayPool, auto_worker_count
from alphazero.train.loop import TrainingRun

from helpers import ROOT, TINY

register()  # the settings' structures that conf/ composes on
pytestmark = pytest.mark.integration  # a Ray cluster and its actors

ONE_WORKER = ["selfplay.workers=1", "eval.interval=0"]


@pytest.fixture(scope="module")
def ray_address():
    """One local Ray with 2 CPUs for the whole module; runs join it by its address."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR", _node_ip_address="127.0.0.1")
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def saved_state(tmp_path):
    latest = tmp_path / "checkpoints" / "connect4_classic" / "latest.pt"
    assert (latest.parent / "replay.pt").is_file()
    return torch.load(latest, weights_only=True)


def test_ray_run_leaves_the_same_artefacts_as_a_local_run(tmp_path, ray_address, scalar_tags, train):
    local_dir, ray_dir = tmp_path / "local", tmp_path / "ray"
    local_dir.mkdir()
    ray_dir.mkdir()
    local = train(local_dir, "eval.interval=0", "train.max_games=16", "pool=local")
    assert local.returncode == 0, local.stderr
    on_ray = train(ray_dir, *ONE_WORKER, "train.max_games=16", "pool=ray",
                   f"pool.address={ray_address}")
    assert on_ray.returncode == 0, on_ray.stderr
    assert scalar_tags(ray_dir / "runs" / "0") == scalar_tags(local_dir / "runs" / "0")
    local_state, ray_state = saved_state(local_dir), saved_state(ray_dir)
    assert ray_state.keys() == local_state.keys()
    assert ray_state["counters"]["games"] >= 16 and ray_state["counters"]["steps"] > 0
    kept = game_log.read_games(ray_dir / "checkpoints" / "connect4_classic")
    assert [g["index"] for g in kept] == list(range(ray_state["counters"]["games"]))
    versions = [g["network"] for g in kept]  # one actor: the versions it played rise
    assert versions == sorted(versions) and versions[-1] < ray_state["counters"]["round"]


def test_a_killed_actor_is_replaced_and_the_run_completes(tmp_path, ray_address, monkeypatch):
    overrides = [*TINY, *ONE_WORKER, "pool=ray", "train.max_games=24",
                 "run_name=connect4_classic", f"train.checkpoint_dir={tmp_path}/checkpoints"]
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = compose("config", overrides=overrides)
    collect, killed = RayPool.collect, []

    def kill_an_actor_then_collect(pool, min_positions, stop):
        # Before it delivers any game: games it already delivered would be used, rightly,
        # and could finish this short run before its replacement plays.
        if not killed:
            ray.kill(pool.actors[0])  # as if its process or its node died in mid-game
            killed.append(pool.actors[0])
        return collect(pool, min_positions, stop)

    monkeypatch.setattr(RayPool, "collect", kill_an_actor_then_collect)
    TrainingRun(cfg, tmp_path / "runs", "connect4_classic").run()
    assert saved_state(tmp_path)["counters"]["games"] >= 24
    events = EventAccumulator(str(tmp_path / "runs"))
    events.Reload()
    assert events.Scalars("pool/restarts")[-1].value == 1  # one per death, not per lost call
    assert events.Scalars("pool/workers_alive")[-1].value == 1  # the replacement played


def test_pool_ray_without_ray_installed_says_how_to_install_it(tmp_path):
    blocked = ("import runpy, sys; sys.modules['ray'] = None; "
               "runpy.run_module('alphazero.train', run_name='__main__', alter_sys=True)")
    result = subprocess.run(
        [sys.executable, "-c", blocked, *TINY, *ONE_WORKER, "pool=ray",
         f"out_dir={tmp_path}/runs", f"train.checkpoint_dir={tmp_path}/checkpoints"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["error: pool=ray needs Ray: pip install '.[ray]'"]


def test_auto_worker_count_fills_the_cluster_but_one_cpu():
    assert auto_worker_count({"CPU": 64.0}, num_cpus=1, num_gpus=0) == 63
    assert auto_worker_count({"CPU": 64.0, "GPU": 2.0}, num_cpus=2, num_gpus=0.25) == 8
    assert auto_worker_count({"CPU": 2.0}, num_cpus=4, num_gpus=0) == 1
