"""How alive are a CNN checkpoint's head channels? For each 1x1-conv channel of the policy and
value heads, the share of 128 random positions (2-39 random moves from the start) on which
its activation is positive. A channel at 0 is negative on every input: with a ReLU it passes
no gradient and never learns again.

    python bench/probe_heads.py checkpoints/pretrained/*.pt
"""
import sys

import numpy as np
import torch

from alphazero import checkpoint
from alphazero.evaluate import random_opening
from alphazero.network import build_model
from games import make_game


def random_positions(game, count: int = 128) -> torch.Tensor:
    rng = np.random.default_rng(0)
    states = [random_opening(game, game.new_state(rng), int(rng.integers(2, 40)), rng)
              for _ in range(count)]
    return torch.tensor(np.stack([game.encode(state) for state in states]), dtype=torch.float32)


def active_shares(path: str) -> dict[str, np.ndarray]:
    saved = checkpoint.load(path)
    if saved["model_kind"] != "cnn":
        raise SystemExit(f"error: {path} is a {saved['model_kind']} network; this probe reads the cnn heads.")
    game = make_game(saved["game"], **saved["game_params"])
    net = build_model("cnn", game, **saved["model_sizes"])
    net.load_state_dict(saved["model"])
    net.eval()
    outputs = {}
    for name, head in (("policy", net.policy_head), ("value", net.value_head)):
        activation = next(m for m in head if isinstance(m, (torch.nn.ReLU, torch.nn.LeakyReLU)))
        activation.register_forward_hook(lambda module, args, out, name=name: outputs.__setitem__(name, out))
    with torch.no_grad():
        net(random_positions(game))
    return {name: (out > 0).float().mean(dim=(0, 2, 3)).numpy() for name, out in outputs.items()}


if __name__ == "__main__":
    for path in sys.argv[1:]:
        shares = active_shares(path)
        print(path, *(f"{name} [{' '.join(f'{x:.2f}' for x in share)}]" for name, share in shares.items()))
