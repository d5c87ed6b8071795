"""How well a course-Othello network's heads alone rank the moves of issue 34's 200 endgame
positions (10-14 empty cells, evaluation seed 0) by their exact final disc difference.

    python bench/endgame_margins.py [positions=200] CHECKPOINT.pt [CHECKPOINT.pt ...]

For every legal move the network evaluates the position after it, once, without search: the
value head, and with an ownership head its mean over the 64 cells times 64 (the final disc
margin it predicts). Prints, per network, how often the move each estimate ranks first is an
exact best move, each estimate's correlation with the exact margins, and the ownership
margin's mean error in discs. An experiment's measurement (docs/experiments.md, "A score
utility"): a margin estimate whose error is larger than the gaps between moves cannot
steer a search towards the best disc difference.
"""
from __future__ import annotations

import json
import sys

import numpy as np
import torch

from alphazero.nn import checkpoint
from alphazero.evaluate.judges import solved_positions
from alphazero.agent.players import load_network
from games import make_game


def after_each_move(game, state):
    legal = game.legal_list(state)
    children = []
    for action in legal:
        child = state.copy()
        game.play(child, action)
        children.append(child)
    return legal, children


def measure(path: str, game, states, values) -> dict:
    saved = checkpoint.load(path)
    model = load_network(saved, game, "cpu", "float32").model
    has_ownership = saved["model_sizes"].get("ownership", False)
    best_by_value = best_by_margin = 0
    value_pairs, margin_pairs = [], []
    for state, move_values in zip(states, values):
        legal, children = after_each_move(game, state)
        exact = move_values[legal].astype(np.float64)
        planes = torch.from_numpy(np.stack([game.encode(c) for c in children]).astype(np.float32))
        masks = torch.from_numpy(np.stack([game.legal_mask(c) for c in children]))
        # each child is evaluated from its side to move: turn it to the mover's view
        sign = np.where([game.to_move(c) == game.to_move(state) for c in children], 1.0, -1.0)
        with torch.no_grad():
            outputs = model(planes, masks, with_ownership=has_ownership)
        value = sign * outputs[1].numpy()
        best_by_value += exact[np.argmax(value)] == exact.max()
        value_pairs += zip(value, exact)
        if has_ownership:
            margin = sign * outputs[2].numpy().mean(axis=1) * outputs[2].shape[1]
            best_by_margin += exact[np.argmax(margin)] == exact.max()
            margin_pairs += zip(margin, exact)
    result = {"checkpoint": path, "best_by_value": float(best_by_value / len(states)),
              "corr_value_exact": round(float(np.corrcoef(np.array(value_pairs).T)[0, 1]), 3)}
    if has_ownership:
        margins, exacts = np.array(margin_pairs).T
        result |= {"best_by_margin": float(best_by_margin / len(states)),
                   "corr_margin_exact": round(float(np.corrcoef(margins, exacts)[0, 1]), 3),
                   "margin_error_discs": round(float(np.abs(margins - exacts).mean()), 2)}
    return result


def main(args: list[str]) -> None:
    counts = [int(arg.split("=", 1)[1]) for arg in args if arg.startswith("positions=")]
    paths = [arg for arg in args if not arg.startswith("positions=")]
    game = make_game("othello", rules="course")
    # the positions evaluate's solver measure draws (its seed 0); plies bound only Connect-4's
    states, values, _ = solved_positions(game, counts[-1] if counts else 200, "random", (8, 30),
                                         seed=0)
    for path in paths:
        print(json.dumps(measure(path, game, states, values)))


if __name__ == "__main__":
    main(sys.argv[1:])
