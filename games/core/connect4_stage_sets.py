"""Classic Connect-4 positions labelled by a perfect solver (shared by the native game and
OpenSpiel's Connect Four, whose actions are columns too), grouped as in Pascal Pons' test
protocol by the stage of the game and by how far its end is with perfect play:

  stage       begin: 1-14 stones on the board, middle: 15-28, end: 29 or more
  difficulty  easy: the game ends within 13 more moves with perfect play, medium: 14-27,
              hard: 28 or more

which gives six sets (end-easy, middle-easy, middle-medium, begin-easy, begin-medium,
begin-hard; the other three cannot occur on 42 cells). Every position carries each column's
exact score (Pons' convention, from the view of the side to move: 0 a draw, quick wins high;
null for a full column). The positions and their scores are in connect4_stage_positions.json, written
by scripts/connect4_stage_sets.py with BitBully (PyPI `bitbully`, a perfect solver with opening
books), so measuring needs no solver.

A move is a mistake when its score has a worse sign than the best column's: it turns a win
into a draw or a loss, or a draw into a loss (alphazero.evaluate.judges counts them as
dropped outcomes). In a lost position no move is a mistake.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


POSITIONS_FILE = Path(__file__).with_name("connect4_stage_positions.json")
ILLEGAL_MOVE_SCORE = -1000  # a full column's score, as games.connect4's solver writes it
SET_NAMES = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")
ROWS, COLS = 6, 7

# Published agents' mistakes (%) on Pons' sets against the self-play simulations that trained
# them, for a run's curve to be set beside (alphazero.curve curve.mode=stages). AlphaZero.jl's
# Connect-4 tutorial agent, read from its published plot to about 0.3 points: each iteration
# is 5,000 self-play games of about 35 moves at 600 simulations, 1.05e8 simulations.
PUBLISHED_STAGE_CURVES = {
    "AlphaZero.jl tutorial": [
        (iteration * 1.05e8, dict(zip(("begin-easy", "middle-easy", "end-easy", "begin-medium",
                                       "middle-medium", "begin-hard"), mistakes)))
        for iteration, mistakes in ((2, (3.6, 1.0, 0.7, 13, 13, 38)),
                                    (3, (0.7, 0.6, 0.3, 4.8, 7.5, 14)),
                                    (5, (0, 0.1, 0, 3, 3.7, 12)),
                                    (15, (0, 0, 0, 2.0, 2.8, 7.3)))],
}


def stage_set(stones: int, moves_left: int) -> str | None:
    """The set of a position with this many stones whose game ends `moves_left` moves later
    with perfect play; None for the combinations that cannot occur."""
    stage = "begin" if stones <= 14 else "middle" if stones <= 28 else "end"
    difficulty = "easy" if moves_left < 14 else "medium" if moves_left < 28 else "hard"
    name = f"{stage}-{difficulty}"
    return name if name in SET_NAMES else None


def load_stage_sets(game, per_set: int) -> dict[str, tuple[list[np.ndarray], list[np.ndarray]]]:
    """Up to `per_set` positions of each set as (states of `game`, per-action scores with
    ILLEGAL_MOVE_SCORE on full columns), in the file's order."""
    data = json.loads(POSITIONS_FILE.read_text())
    sets = {}
    for name in SET_NAMES:
        states, scores = [], []
        for entry in data["sets"][name][:per_set]:
            state = game.new_state()
            for column in entry["moves"]:
                game.play(state, int(column) - 1)
            states.append(state)
            scores.append(np.array([ILLEGAL_MOVE_SCORE if s is None else s
                                    for s in entry["scores"]], dtype=np.int64))
        sets[name] = (states, scores)
    return sets

