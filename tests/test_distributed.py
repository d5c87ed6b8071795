"""Data-parallel training: two CPU processes (gloo) step exactly as one process would."""
import copy
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from alphazero.train.distributed import DataParallelTrainer
from alphazero.nn.network import build_model
from alphazero.train.trainer import Trainer

pytestmark = pytest.mark.integration  # two training processes (gloo)

SPEC = SimpleNamespace(planes=3, height=6, width=7, num_actions=7)
TRAINER_ARGS = {"lr": 0.1, "weight_decay_l2": 1e-3, "optimizer": "sgd"}


def random_batch(size: int, rng):
    planes = rng.integers(0, 2, (size, SPEC.planes, SPEC.height, SPEC.width)).astype(np.float32)
    pis = rng.dirichlet(np.ones(SPEC.num_actions), size).astype(np.float32)
    zs = rng.choice(np.array([-1.0, 0.0, 1.0], dtype=np.float32), size)
    return planes, pis, zs


def without_batch_norm(model: torch.nn.Module) -> torch.nn.Module:
    """On the CPU each rank's batch norm sees its own slice (SyncBatchNorm is CUDA-only), so
    the exact comparison runs on the network without its batch norms."""
    for name, module in model.named_children():
        if isinstance(module, torch.nn.BatchNorm2d):
            setattr(model, name, torch.nn.Identity())
        else:
            without_batch_norm(module)
    return model


def test_two_gloo_processes_compute_the_gradients_of_the_whole_batch():
    torch.manual_seed(0)
    model = without_batch_norm(build_model("cnn", SPEC, channels=[8, 8]))
    alone_model = copy.deepcopy(model)
    alone = Trainer(alone_model, **TRAINER_ARGS)
    parallel = DataParallelTrainer(Trainer(model, **TRAINER_ARGS), TRAINER_ARGS, ["cpu", "cpu"])
    rng = np.random.default_rng(0)
    try:
        # Each step also checks that the other replica took the same step before, at the
        # learning rate that rank 0 was given (train.lr_schedule changes it between steps).
        for step in range(3):
            if step == 1:
                alone.set_lr(0.01)
                parallel.set_lr(0.01)
            batch = random_batch(16, rng)
            expected = alone.train_step(*batch)
            metrics = parallel.train_step(*batch)
            assert metrics["loss/total"] == pytest.approx(expected["loss/total"], rel=1e-5)
            assert metrics["lr"] == pytest.approx(expected["lr"])  # averaged over both ranks
            for (name, p), q in zip(model.named_parameters(), alone_model.parameters()):
                torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=name)
    finally:
        parallel.stop()
