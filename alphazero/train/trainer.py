"""Loss, optimizer step and training metrics.

loss = (z - v)^2 + (-pi . log p) + c * sum of squared weights. The L2 term sits in the
loss rather than in the optimizer's weight_decay so that it can be logged; it covers the
conv and linear weight matrices, not biases or batch-norm scales (which only shift or
rescale and are not what over-fits).
"""
from __future__ import annotations

import contextlib

import numpy as np
import torch
from torch import nn

from alphazero.config.settings import OPTIMIZERS
from alphazero.nn.network import median_call_seconds
from alphazero.nn.precision import BF16_FLAGS, cpu_flags

SGD_MOMENTUM = 0.9


@contextlib.contextmanager
def _buffers_unchanged(model: nn.Module):
    """Lets a train-mode forward pass run without moving batch-norm running statistics."""
    saved = [buffer.clone() for buffer in model.buffers()]
    try:
        yield
    finally:
        with torch.no_grad():
            for buffer, value in zip(model.buffers(), saved):
                buffer.copy_(value)


def _mean_entropy(log_policy: torch.Tensor) -> torch.Tensor:
    return -(log_policy.exp() * log_policy).sum(1).mean()


def training_precision(setting: str, device: torch.device) -> str:
    """train.precision made concrete: `auto` is bfloat16 on a CPU with bfloat16 units
    (1.7-2.1x float32's samples/s on an AMD EPYC with AVX512-BF16; docs/performance.md),
    else float32."""
    if setting != "auto":
        return setting
    return "bfloat16" if torch.device(device).type == "cpu" and cpu_flags() & BF16_FLAGS else "float32"


class Trainer:
    """Owns the optimizer for `model`; one call of train_step is one gradient step."""

    def __init__(self, model: nn.Module, lr: float, weight_decay_l2: float, optimizer: str,
                 device: torch.device | str | None = None, precision: str = "float32"):
        """`lr`, `weight_decay_l2`, `optimizer` and `precision` are train.lr, train.l2,
        train.optimizer and train.precision (alphazero.config.schema: their defaults and meaning).
        In bfloat16 the forward and backward passes run under autocast; the weights, their
        gradients, the optimizer's state and the loss's sums stay float32."""
        self.device = torch.device(device) if device is not None else next(model.parameters()).device
        self.precision = training_precision(precision, self.device)
        # channels_last: the layout oneDNN and cuDNN convolve fastest (on one CPU core,
        # 1.05-1.26x the gradient steps of the default layout; docs/performance.md).
        self.model = model.to(self.device, memory_format=torch.channels_last)
        self.l2 = weight_decay_l2
        self.lr = lr
        self.decayed_weights = [p for p in model.parameters() if p.dim() > 1]
        if optimizer == "adam":
            self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        elif optimizer == "sgd":
            self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=SGD_MOMENTUM)
        else:
            raise ValueError(f"unknown optimizer '{optimizer}'; choose one of: {', '.join(OPTIMIZERS)}.")

    def _as_tensor(self, array) -> torch.Tensor:
        return torch.as_tensor(array, dtype=torch.float32).to(self.device, non_blocking=True)

    def train_step(self, planes, pis, zs, measure_kl: bool = False) -> dict[str, float]:
        """One step on a batch (numpy arrays or tensors: planes [b, P, H, W], pis [b, A],
        zs [b]); returns the metrics logged under these exact TensorBoard tags. With
        measure_kl the metrics add `policy/kl`, how far this step moved the policy on its
        batch: that takes one more forward pass, about a quarter of a step, so a run asks for
        it once a round."""
        planes = self._as_tensor(planes).contiguous(memory_format=torch.channels_last)
        pis, zs = self._as_tensor(pis), self._as_tensor(zs)
        self.model.train()
        with self._autocast():
            log_policy, value = self.model(planes)
        value = value.float()  # the log-policy is float32 already (masked_log_softmax)
        value_loss = (zs - value).pow(2).mean()
        policy_loss = -(pis * log_policy).sum(1).mean()
        l2_loss = self.l2 * sum(w.pow(2).sum() for w in self.decayed_weights)
        total = value_loss + policy_loss + l2_loss
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        self.optimizer.step()

        old_log_policy = log_policy.detach()
        metrics = {"loss/total": total.item(), "loss/value": value_loss.item(),
                   "loss/policy": policy_loss.item(), "loss/l2": l2_loss.item(),
                   "policy/entropy": _mean_entropy(old_log_policy).item(),
                   "lr": self.optimizer.param_groups[0]["lr"]}
        if measure_kl:
            metrics["policy/kl"] = self._kl_after_step(planes, old_log_policy)
        return metrics

    def _kl_after_step(self, planes: torch.Tensor, old_log_policy: torch.Tensor) -> float:
        """KL(policy before the step || after it) on the step's batch, batch-norm statistics
        untouched."""
        with torch.no_grad(), _buffers_unchanged(self.model), self._autocast():
            new_log_policy = self.model(planes)[0]
        # Each row's KL is >= 0; clamping removes float rounding where a policy barely moved.
        kl = (old_log_policy.exp() * (old_log_policy - new_log_policy)).sum(1).clamp_min(0).mean()
        return kl.item()

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16,
                              enabled=self.precision == "bfloat16")

    def state_dict(self) -> dict:
        """The optimizer's state (tensors and plain data)."""
        return self.optimizer.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Restore the optimizer's moments but keep this trainer's learning rate, so that a
        resumed run honours a changed `train.lr`."""
        self.optimizer.load_state_dict(state)
        self.set_lr(self.lr)

    def set_lr(self, lr: float) -> None:
        self.lr = lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr


def measure_training(trainer: Trainer, spec, batch_size: int, seconds: float = 1.0) -> float:
    """Training samples per second on random batches. It takes real optimizer steps, so
    pass a throwaway trainer, not the one of a run."""
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (batch_size, spec.planes, spec.height, spec.width)).astype(np.float32)
    pis = rng.dirichlet(np.ones(spec.num_actions), batch_size).astype(np.float32)
    zs = rng.choice(np.array([-1.0, 0.0, 1.0], dtype=np.float32), batch_size)
    return batch_size / median_call_seconds(lambda: trainer.train_step(planes, pis, zs), seconds)
