"""Whether a low precision changes what a run learns from, beside the noise already there.

Two measurements on one network (a run's checkpoint or snapshot), on one CPU thread:

  targets: positions of the network's own self-play, with its run's search settings. At each,
    the run's full search (its simulations, Dirichlet noise at the root) in float32 gives the
    reference: the visit shares pi and the root value q that self-play records. The same
    search with the same noise on each low-precision path this CPU has (bfloat16 through
    OpenVINO and through torch's autocast, int8 through ONNX Runtime) gives what the
    precision changes; float32 with other noise gives how much the search varies anyway. A
    row each: the mean total variation of pi from the reference, the share of positions whose
    most visited move differs, and the mean |q| difference.
  steps: training from the network's weights on its run's replay buffer (the newest tenth held
    out): K steps in float32 and K under bfloat16 autocast (where the CPU has bfloat16 units)
    on the same batches, and K in float32 on other batches (how much the batches' draw alone
    moves the result). A row each: the held-out value and policy losses every K/4 steps.

    python scripts/precision_learning.py CHECKPOINT [--positions N] [--steps K] [--replay PATH]
        # --replay: default the replay.pt beside CHECKPOINT's run (latest.pt's folder)

Results: docs/experiments.md ("Low precision per game").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf

from alphazero.nn import checkpoint
from alphazero.nn.network import build_model, checkpoint_inference
from alphazero.nn.precision import BF16_FLAGS, candidate_paths, cpu_flags
from alphazero.search.puct import BatchedSearch, SearchConfig
from alphazero.train.trainer import Trainer
from games import make_game

TREES = 64          # searched at once: the network's batch, as in self-play
KEEP_SHARE = 0.25   # of self-play's positions, kept as roots (spread over whole games)
BATCH = 256         # training's batch (train.batch_size's default)
HELD_OUT = 0.1      # the newest share of the replay buffer, never trained on


def self_play_roots(game, inference, config: SearchConfig, simulations: int,
                    temperature_moves: int, count: int, seed: int) -> np.ndarray:
    """`count` positions of the network's self-play in float32 (the first plies sampled as
    the run samples them)."""
    rng = np.random.default_rng(seed)
    search = BatchedSearch(game, TREES, simulations, config, seed=seed)
    for b in range(TREES):
        search.set_root(b, game.new_state(rng))
    roots = []
    while len(roots) < count:
        search.run(inference, add_noise=True)
        visits = search.visit_counts()
        states = search.tree.root_states
        plies = np.array([game.ply(state) for state in states])
        kept = search.active & (rng.random(TREES) < KEEP_SHARE)
        roots.extend(states[kept].copy())
        actions = search.choose(visits, np.where(plies < temperature_moves, 1.0, 0.0))
        for b in range(TREES):
            if search.active[b]:
                search.advance(b, int(actions[b]))
            if not search.active[b]:
                search.set_root(b, game.new_state(rng))
    return np.array(roots[:count])


def searched(game, inference, config: SearchConfig, simulations: int, roots: np.ndarray,
             noise_seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(pi [n, A], q [n]) of the full search with root noise from `noise_seed` at each root."""
    pis, qs = [], []
    for start in range(0, len(roots), TREES):
        chunk = roots[start:start + TREES]
        search = BatchedSearch(game, len(chunk), simulations, config, seed=noise_seed + start)
        for b, state in enumerate(chunk):
            search.set_root(b, state)
        search.run(inference, add_noise=True)
        visits = search.visit_counts()
        pis.append(visits / visits.sum(1, keepdims=True))
        qs.append(search.root_values())
    return np.concatenate(pis), np.concatenate(qs)


def measure_targets(saved: dict, game, run, positions: int) -> None:
    config = SearchConfig.from_cfg(run.mcts)
    simulations = int(run.mcts.simulations)
    cpu = torch.device("cpu")
    float32 = checkpoint_inference(saved, game, cpu, "float32")
    # this CPU's low-precision paths, and torch's own bfloat16 (autocast) where it has the units
    others = {f"{precision} through {runtime}": checkpoint_inference(saved, game, cpu, precision, runtime)
              for precision, runtime in candidate_paths() if precision != "float32"}
    if cpu_flags() & BF16_FLAGS:
        others["bfloat16 through torch"] = checkpoint_inference(saved, game, cpu, "bfloat16", "torch")
    roots = self_play_roots(game, float32, config, simulations,
                            int(run.selfplay.temperature_moves), positions, seed=1)
    ref_pi, ref_q = searched(game, float32, config, simulations, roots, noise_seed=0)
    variants = {"float32, other noise": (float32, 10_000)}
    variants.update({f"{name}, same noise": (network, 0) for name, network in others.items()})
    for name, (network, noise_seed) in variants.items():
        pi, q = searched(game, network, config, simulations, roots, noise_seed)
        tv = 0.5 * np.abs(pi - ref_pi).sum(1)
        print(json.dumps({"measure": "targets", "search": name, "positions": len(roots),
                          "simulations": simulations,
                          "pi_total_variation": round(float(tv.mean()), 4),
                          "pi_total_variation_p90": round(float(np.quantile(tv, 0.9)), 4),
                          "most_visited_differs": round(float(np.mean(
                              np.argmax(pi, 1) != np.argmax(ref_pi, 1))), 3),
                          "q_difference": round(float(np.abs(q - ref_q).mean()), 4)}), flush=True)


def held_out_losses(model: torch.nn.Module, planes, pis, zs) -> tuple[float, float]:
    model.eval()
    value_sum = policy_sum = 0.0
    with torch.no_grad():
        for start in range(0, len(planes), 1024):
            x = torch.from_numpy(planes[start:start + 1024].astype(np.float32))
            log_policy, value = model(x.contiguous(memory_format=torch.channels_last))
            pi = torch.from_numpy(pis[start:start + 1024].astype(np.float32))
            value_sum += (torch.from_numpy(zs[start:start + 1024]) - value.float()).pow(2).sum().item()
            policy_sum += -(pi * log_policy).sum().item()
    return value_sum / len(planes), policy_sum / len(planes)


def measure_steps(saved: dict, game, run, replay_path: Path, steps: int) -> None:
    replay = torch.load(replay_path, map_location="cpu", weights_only=True)
    planes, pis, zs = replay["planes"].numpy(), replay["pis"].numpy(), replay["zs"].numpy()
    split = int(len(planes) * (1 - HELD_OUT))
    held_out = planes[split:], pis[split:], zs[split:]
    arms = {"float32": ("float32", 0), "bfloat16, same batches": ("bfloat16", 0),
            "float32, other batches": ("float32", 1)}
    if not cpu_flags() & BF16_FLAGS:
        del arms["bfloat16, same batches"]  # no bfloat16 units: training keeps float32
    for name, (precision, batch_seed) in arms.items():
        model = build_model(saved["model_kind"], game, **saved["model_sizes"])
        model.load_state_dict(saved["model"])
        trainer = Trainer(model, float(run.train.lr), float(run.train.l2), str(run.train.optimizer),
                          "cpu", precision)
        rng = np.random.default_rng(batch_seed)
        losses = {}
        for step in range(1, steps + 1):
            rows = rng.integers(0, split, BATCH)
            trainer.train_step(planes[rows].astype(np.float32), pis[rows].astype(np.float32), zs[rows])
            if step % max(1, steps // 4) == 0:
                losses[step] = [round(loss, 4) for loss in held_out_losses(trainer.model, *held_out)]
        print(json.dumps({"measure": "steps", "training": name, "samples": split,
                          "held_out": len(planes) - split, "batch": BATCH, "lr": float(run.train.lr),
                          "held_out_value_policy_loss": losses}), flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--positions", type=int, default=512)
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--replay", type=Path)
    args = parser.parse_args(argv)
    if args.positions < 1 or args.steps < 1:
        parser.error("--positions and --steps must be at least 1.")
    torch.set_num_threads(1)
    saved = checkpoint.load(args.checkpoint)
    if "config" not in saved:
        raise checkpoint.CheckpointError(
            f"{args.checkpoint} holds a network without its run's settings; give a run's "
            "checkpoint, such as checkpoints/RUN/latest.pt or one of its snapshots.")
    run_folder = args.checkpoint.parent.parent if args.checkpoint.parent.name == "snapshots" \
        else args.checkpoint.parent
    replay = args.replay or run_folder / "replay.pt"
    if not replay.is_file():
        raise checkpoint.CheckpointError(f"no replay buffer at {replay}; name one with --replay.")
    game = make_game(saved["game"], **saved["game_params"])
    run = OmegaConf.create(saved["config"])
    measure_targets(saved, game, run, args.positions)
    measure_steps(saved, game, run, replay, args.steps)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except checkpoint.CheckpointError as error:
        sys.exit(str(error))
