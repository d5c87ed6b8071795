"""The weight average: its decay schedule, each update's arithmetic, and what it copies."""
import pytest
import torch
from torch import nn

from alphazero.averaging import WeightAverage


def small_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(12, 1))


def test_the_decay_warms_up_then_holds():
    average = WeightAverage(small_model(), decay=0.99)
    assert average.decay_at(0) == pytest.approx(0.1)
    assert average.decay_at(10) == pytest.approx(11 / 20)
    assert average.decay_at(10_000) == 0.99
    assert [average.decay_at(n) for n in range(2000)] == sorted(average.decay_at(n) for n in range(2000))


def test_an_update_moves_each_weight_by_one_minus_the_decay():
    model = small_model()
    average = WeightAverage(model, decay=0.9)
    before = {k: v.clone() for k, v in average.model.state_dict().items()}
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
        model[1].running_mean.add_(2.0)
        model[1].num_batches_tracked.add_(7)
    average.update(model, steps=1000)  # past the warm-up: decay 0.9
    after = average.model.state_dict()
    for name, parameter in model.named_parameters():
        assert torch.allclose(after[name], before[name] + 0.1), name
    assert torch.allclose(after["1.running_mean"], before["1.running_mean"] + 0.2)
    assert after["1.num_batches_tracked"] == model[1].num_batches_tracked  # counted, not averaged


def test_the_average_is_its_own_copy_and_takes_no_gradients():
    model = small_model()
    average = WeightAverage(model, decay=0.5)
    with torch.no_grad():
        model[0].weight.zero_()
    assert average.model[0].weight.abs().sum() > 0
    assert not any(p.requires_grad for p in average.model.parameters())
    assert not average.model.training
