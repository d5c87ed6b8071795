"""Trainer: the loss falls on a fixed batch, metrics are complete and sane, state saves."""
import copy
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from alphazero.config.settings import run_share, scheduled_lr
from alphazero.nn.network import build_model
from alphazero.train.trainer import Trainer, measure_training

SPEC = SimpleNamespace(planes=2, height=4, width=5, num_actions=20)
KINDS = {"cnn": {"channels": (16, 16, 16)}, "resnet": {"blocks": 2, "channels": 16}}
METRICS = {"loss/total", "loss/value", "loss/policy", "loss/l2", "policy/entropy", "lr"}


def make(kind: str) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_model(kind, SPEC, **KINDS[kind])


def fixed_batch(size: int = 32):
    """Distinct random positions with one-hot policy targets, so the loss can approach 0."""
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (size, SPEC.planes, SPEC.height, SPEC.width)).astype(np.float32)
    pis = np.eye(SPEC.num_actions, dtype=np.float32)[rng.integers(0, SPEC.num_actions, size)]
    zs = rng.choice(np.array([-1, 0, 1], dtype=np.float32), size)
    return planes, pis, zs


@pytest.mark.parametrize("kind", KINDS)
def test_loss_falls_on_a_fixed_batch(kind):
    trainer = Trainer(make(kind), lr=1e-3, weight_decay_l2=1e-4, optimizer="adam")
    batch = fixed_batch()
    history = [trainer.train_step(*batch, measure_kl=step % 2 == 0) for step in range(200)]
    for step, metrics in enumerate(history):
        measured = {"policy/kl"} if step % 2 == 0 else set()
        assert set(metrics) == METRICS | measured
        assert all(math.isfinite(value) for value in metrics.values())
        assert metrics.get("policy/kl", 0) >= 0
    first, last = history[0], history[-1]
    assert last["loss/policy"] < 0.5 * first["loss/policy"]
    assert last["loss/value"] < 0.5 * first["loss/value"]
    assert last["loss/total"] < 0.5 * first["loss/total"]
    assert last["policy/entropy"] < first["policy/entropy"]
    assert first["lr"] == 1e-3


def test_l2_term_is_the_weighted_sum_of_squared_weights():
    model = make("resnet")
    weights = [p.detach().clone() for p in model.parameters() if p.dim() > 1]
    metrics = Trainer(model, lr=1e-3, weight_decay_l2=1e-3, optimizer="adam").train_step(*fixed_batch())
    assert metrics["loss/l2"] == pytest.approx(1e-3 * sum(float((w ** 2).sum()) for w in weights),
                                               rel=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_kl_is_zero_when_the_weights_do_not_move(kind):
    trainer = Trainer(make(kind), lr=0.0, weight_decay_l2=1e-4, optimizer="sgd")
    assert abs(trainer.train_step(*fixed_batch(), measure_kl=True)["policy/kl"]) < 1e-6


def test_kl_is_positive_when_a_step_moves_the_policy():
    trainer = Trainer(make("cnn"), lr=1e-2, weight_decay_l2=1e-4, optimizer="adam")
    assert trainer.train_step(*fixed_batch(), measure_kl=True)["policy/kl"] > 1e-6


def test_a_step_updates_batch_norm_statistics_once():
    model = make("resnet")
    # in the trainer's layout, so that the float sums round alike
    reference = copy.deepcopy(model).to(memory_format=torch.channels_last).train()
    planes, pis, zs = fixed_batch()
    with torch.no_grad():
        reference(torch.from_numpy(planes).contiguous(memory_format=torch.channels_last))
    Trainer(model, lr=0.0, weight_decay_l2=1e-4, optimizer="sgd").train_step(planes, pis, zs)
    for got, want in zip(model.buffers(), reference.buffers()):
        assert torch.equal(got, want)


def test_optimizer_state_round_trip(tmp_path):
    trainer = Trainer(make("cnn"), lr=0.002, weight_decay_l2=1e-4, optimizer="adam")
    trainer.train_step(*fixed_batch())
    torch.save(trainer.state_dict(), tmp_path / "optimizer.pt")
    restored = Trainer(make("cnn"), lr=0.002, weight_decay_l2=1e-4, optimizer="adam")
    restored.load_state_dict(torch.load(tmp_path / "optimizer.pt", weights_only=True))
    saved, loaded = trainer.state_dict()["state"], restored.state_dict()["state"]
    assert saved.keys() == loaded.keys()
    for key in saved:
        assert torch.equal(saved[key]["exp_avg"], loaded[key]["exp_avg"])


def test_restored_optimizer_takes_the_new_learning_rate(tmp_path):
    trainer = Trainer(make("cnn"), lr=0.002, weight_decay_l2=1e-4, optimizer="adam")
    trainer.train_step(*fixed_batch())
    annealed = Trainer(make("cnn"), lr=0.0005, weight_decay_l2=1e-4, optimizer="adam")
    annealed.load_state_dict(trainer.state_dict())
    assert annealed.train_step(*fixed_batch())["lr"] == 0.0005
    assert trainer.state_dict()["param_groups"][0]["lr"] == 0.002  # the saved state is untouched


def test_bad_settings_are_clear_errors():
    with pytest.raises(ValueError, match="unknown optimizer 'rmsprop'"):
        Trainer(make("cnn"), lr=0.002, weight_decay_l2=1e-4, optimizer="rmsprop")


def test_measure_training_reports_a_rate():
    assert measure_training(Trainer(make("cnn"), lr=0.002, weight_decay_l2=1e-4, optimizer="adam"), SPEC, batch_size=8, seconds=0.05) > 0


def test_lr_schedule_takes_the_last_stage_reached():
    train = OmegaConf.create({"lr": 0.002, "lr_schedule": [[0.25, 0.001], [0.75, 0.0002]],
                              "max_games": 4000, "max_minutes": None})
    assert [scheduled_lr(train, games, 0.0) for games in (0, 999, 1000, 2999, 3000, 10**6)] == \
        [0.002, 0.002, 0.001, 0.001, 0.0002, 0.0002]
    assert scheduled_lr(OmegaConf.create({"lr": 0.002, "lr_schedule": None, "max_games": 10,
                                          "max_minutes": None}), 5000, 0.0) == 0.002


def test_lr_schedule_follows_whichever_limit_is_further_along():
    """A run limited in minutes drops its rate at the same share of its minutes, whatever the
    machine's games per minute."""
    train = OmegaConf.create({"lr": 0.002, "lr_schedule": [[0.5, 0.0005]],
                              "max_games": None, "max_minutes": 60})
    assert [scheduled_lr(train, 10**6, minutes) for minutes in (0, 29.9, 30, 59)] == \
        [0.002, 0.002, 0.0005, 0.0005]
    both = OmegaConf.merge(train, {"max_games": 1000})
    assert scheduled_lr(both, 500, 1.0) == scheduled_lr(both, 10, 30.0) == 0.0005
    assert scheduled_lr(both, 499, 29.0) == 0.002
    assert run_share(both, 250, 45.0) == 0.75


