"""Real positions for the low-precision accuracy check: the leaves a shipped network's own
self-play search evaluates, sampled over whole games, written to
alphazero/nn/positions/<network>.npz (planes as uint8, the legal mask packed to bits).

    python scripts/precision_positions.py [NAME ...]   # default: every shipped network

Each file keeps POSITIONS positions of one network's input shape; alphazero.nn.precision
finds them by game and input shape. The run is seeded: the same networks give the same files.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from alphazero.config.paths import PRETRAINED_DIR
from alphazero.config.compose import compose_config
from alphazero.nn import checkpoint
from alphazero.nn.network import checkpoint_inference
from alphazero.nn.precision import POSITIONS_DIR, save_positions
from alphazero.search.puct import SearchConfig
from alphazero.workers.selfplay import SelfPlayConfig, SelfPlayWorker
from games import make_game

POSITIONS = 512
GAMES_IN_PARALLEL = 16
KEEP_SHARE = 0.004  # of the evaluated leaves; about a thousand from the games played


def collect(name: str) -> Path:
    torch.set_num_threads(1)
    saved = checkpoint.load(PRETRAINED_DIR / f"{name}.pt")
    game = make_game(saved["game"], **saved["game_params"])
    cfg = compose_config("config", [f"game={name}"])  # the recipe's self-play search
    inference = checkpoint_inference(saved, game, torch.device("cpu"))
    rng = np.random.default_rng(0)
    kept_planes, kept_legal = [], []

    def sampling(planes, legal):
        rows = rng.random(len(planes)) < KEEP_SHARE
        kept_planes.append(planes[rows].copy())
        kept_legal.append(legal[rows].copy())
        return inference(planes, legal)

    config = SelfPlayConfig.from_cfg(cfg, games_in_parallel=GAMES_IN_PARALLEL, full_search_share=1.0)
    worker = SelfPlayWorker(game, sampling, config, SearchConfig.from_cfg(cfg.mcts), seed=0)
    finished = 0
    while finished < GAMES_IN_PARALLEL or sum(map(len, kept_planes)) < 2 * POSITIONS:
        finished += len(worker.play_move())
    planes, legal = np.concatenate(kept_planes), np.concatenate(kept_legal)
    chosen = np.sort(rng.choice(len(planes), POSITIONS, replace=False))
    return save_positions(POSITIONS_DIR / f"{name}.npz", game.name, planes[chosen], legal[chosen])


def main(names: list[str]) -> int:
    for name in names or sorted(path.stem for path in PRETRAINED_DIR.glob("*.pt")):
        print(f"{name}: {collect(name)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
