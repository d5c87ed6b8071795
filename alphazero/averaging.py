"""An exponential moving average of the training network's weights (Polyak averaging).

With `train.weight_average` set, a run trains its network as before, and self-play keeps
using the trained weights, but what the run exports (best.pt, snapshots, the network in
latest.pt that play, engine and evaluate load) and what its gate measures is the average:
it smooths the step-to-step noise of a high, constant learning rate. After each gradient
step the average moves towards the new weights by 1 - decay, where the decay is
min(weight_average, (1 + steps) / (10 + steps)): early on the window is short, so the
average does not drag the random initial weights along.
"""
from __future__ import annotations

import copy

import torch
from torch import nn


class WeightAverage:
    """An averaged copy of `model` (`self.model`); call `update` after every gradient step."""

    def __init__(self, model: nn.Module, decay: float):
        self.decay = decay
        self.model = copy.deepcopy(model).eval()
        for parameter in self.model.parameters():
            parameter.requires_grad_(False)

    def decay_at(self, steps: int) -> float:
        """The decay for the update after `steps` gradient steps in all."""
        return min(self.decay, (1 + steps) / (10 + steps))

    @torch.no_grad()
    def update(self, model: nn.Module, steps: int) -> None:
        """Move the average towards `model`, whose weights have taken `steps` steps in all.
        Batch-norm running statistics are averaged too; the step counter is copied."""
        weight = 1 - self.decay_at(steps)
        trained = model.state_dict()
        for name, average in self.model.state_dict().items():
            if average.is_floating_point():
                average.lerp_(trained[name], weight)
            else:
                average.copy_(trained[name])
