"""Data-parallel training with torch DistributedDataParallel: one process per device.

The training run's own process is rank 0: it owns the replay buffer and samples each batch.
Every step it broadcasts the batch to all ranks, each rank trains on its equal slice, DDP
averages the gradients during backward, and every optimizer takes the same step, so the
replicas never drift apart. With equal slices the averaged gradient is the gradient of the
whole batch, so a run learns as it would in one process, only faster. CUDA devices talk over
NCCL; a list of CPU devices runs the same path over gloo.
"""
from __future__ import annotations

import copy
import datetime
import io
import signal
import socket
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from alphazero.config.errors import ConfigError
from alphazero.train.trainer import Trainer

# Rank 0 spends long stretches in self-play and gating while the others wait for a batch.
WAIT_LIMIT = datetime.timedelta(days=1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _join_group(rank: int, devices: list[str], address: str) -> torch.device:
    device = torch.device(devices[rank])
    backend = "nccl" if device.type == "cuda" else "gloo"
    dist.init_process_group(backend, init_method=address, rank=rank, world_size=len(devices),
                            timeout=WAIT_LIMIT)
    return device


def _make_data_parallel(trainer: Trainer, device: torch.device) -> None:
    """Wrap the trainer's model in DDP in place; its optimizer keeps the same parameters."""
    model = trainer.model
    if device.type == "cuda":  # batch statistics over the whole batch (CUDA-only in torch)
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    # The Trainer keeps the weights channels_last. 1x1 kernels have two valid channels_last
    # strides; the reducer copies their gradients, correctly, with a warning that says only that.
    warnings.filterwarnings("ignore", message="Grad strides do not match bucket view strides")
    trainer.model = DistributedDataParallel(
        model, device_ids=[device] if device.type == "cuda" else None)


def _step(trainer: Trainer, batch, rank: int, world: int, device: torch.device,
          measure_kl: bool = False) -> dict:
    """One step on every rank at once: rank 0 passes (planes, pis, zs) and whether to
    measure the KL, the others None. Returns the metrics averaged over the ranks, i.e. those
    of the whole batch."""
    header = torch.zeros(6, dtype=torch.int64, device=device)  # batch, planes, H, W, actions, kl
    if rank == 0:
        header = torch.tensor([*batch[0].shape, batch[1].shape[1], measure_kl], device=device)
    dist.broadcast(header, 0)
    b, p, h, w, a, measure_kl = header.tolist()
    lr = torch.tensor([trainer.lr if rank == 0 else 0.0], dtype=torch.float64, device=device)
    dist.broadcast(lr, 0)  # rank 0 follows train.lr_schedule; the others follow rank 0
    trainer.set_lr(lr.item())
    if rank == 0:
        tensors = [torch.as_tensor(x, dtype=torch.float32).to(device) for x in batch]
    else:
        shapes = ((b, p, h, w), (b, a), (b,))
        tensors = [torch.empty(shape, device=device) for shape in shapes]
    for tensor in tensors:
        dist.broadcast(tensor, 0)
    low, high = rank * b // world, (rank + 1) * b // world
    metrics = trainer.train_step(*(t[low:high] for t in tensors), measure_kl=bool(measure_kl))
    values = torch.tensor(list(metrics.values()), dtype=torch.float64, device=device)
    dist.all_reduce(values)
    return dict(zip(metrics, (values / world).tolist()))


def _replica_main(rank: int, devices: list[str], address: str, model: nn.Module,
                  trainer_args: dict, optimizer_state: bytes) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops rank 0, which ends us
    torch.set_num_threads(1)
    device = _join_group(rank, devices, address)
    trainer = Trainer(model, device=device, **trainer_args)
    trainer.load_state_dict(torch.load(io.BytesIO(optimizer_state), map_location=device,
                                       weights_only=True))
    _make_data_parallel(trainer, device)
    while True:
        _step(trainer, None, rank, len(devices), device)


class DataParallelTrainer:
    """Drop-in for a `Trainer` (train_step, state_dict) whose steps run on `devices`.

    `trainer` becomes rank 0 and must already sit on devices[0]; the other ranks start as
    copies of it, optimizer state included (so a resumed run stays in step).
    """

    def __init__(self, trainer: Trainer, trainer_args: dict, devices: list[str]):
        first = torch.device(devices[0])
        if (first.type, first.index or 0) != (trainer.device.type, trainer.device.index or 0):
            raise ConfigError(f"train.ddp's first device ({devices[0]}) must be the run's device "
                             f"({trainer.device}); set device={devices[0]}.")
        self.trainer = trainer
        self.world = len(devices)
        address = f"tcp://127.0.0.1:{_free_port()}"
        buffer = io.BytesIO()
        torch.save(trainer.state_dict(), buffer)
        model = copy.deepcopy(trainer.model).cpu()
        context = mp.get_context("spawn")  # safe with CUDA, torch and numba threads
        self.replicas = [context.Process(target=_replica_main, daemon=True, args=(
            rank, devices, address, model, trainer_args, buffer.getvalue()))
            for rank in range(1, self.world)]
        for process in self.replicas:
            process.start()
        self.device = _join_group(0, devices, address)
        _make_data_parallel(trainer, self.device)

    def train_step(self, planes, pis, zs, measure_kl: bool = False) -> dict[str, float]:
        return _step(self.trainer, (planes, pis, zs), 0, self.world, self.device, measure_kl)

    def state_dict(self) -> dict:
        return self.trainer.state_dict()

    def set_lr(self, lr: float) -> None:
        self.trainer.set_lr(lr)  # the replicas take it over in the next step

    def stop(self) -> None:
        # The replicas hold nothing rank 0 lacks (it checkpoints), so ending them loses nothing.
        for process in self.replicas:
            process.terminate()
            process.join()
        dist.destroy_process_group()
