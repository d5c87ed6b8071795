"""Plain data and functions that test modules import by name, because they are needed where a
fixture cannot reach: in `parametrize` lists, in module constants built from them, and in the
reference classes and module-level helpers of a test file. A helper that only test functions
call is a fixture in tests/conftest.py instead."""
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from games.openspiel.rules import OpenSpielGame

ROOT = Path(__file__).resolve().parents[1]  # the checkout: commands run from here

# ----------------------------------------------------------------------------- override lists

# The cheapest agent a command can play with.
PURE = ["player=pure", "pure.playouts=50"]

# A training run that finishes in seconds: tiny search, network and replay, no learning-rate
# schedule, every game in the training process, one torch thread (a thread per core spins
# while the other tests hold the cores: a gradient step took 115 ms instead of 14 ms), float32
# (the same moves on every CPU).
TINY = ["game=connect4_classic", "threads=1", "selfplay.precision=float32",
        "train.precision=float32", "mcts.simulations=8", "selfplay.full_search_share=1",
        "eval.simulations=null", "train.lr_schedule=null", "selfplay.q_share=0", "mcts.discount=null",
        "selfplay.workers=0", "train.sample_ratio=4",
        "selfplay.games_in_parallel=8", "train.positions_per_round=60", "train.min_replay=100",
        "train.batch_size=32", "replay.capacity=5000", "model.sizes.channels=[8,8,8]"]

# ----------------------------------------------------------------------------- networks

# A fake game spec for the network tests, and the sizes of each kind of network built on it.
SPEC = SimpleNamespace(planes=3, height=5, width=6, num_actions=31)
KINDS = {"cnn": {}, "resnet": {"blocks": 2, "channels": 16}}


def uniform_network(planes, legal):
    """Equal priors over the legal moves and a value of 0: every search is full of ties."""
    priors = legal / legal.sum(axis=1, keepdims=True)
    return priors.astype(np.float32), np.zeros(len(legal), dtype=np.float32)


# ----------------------------------------------------------------------------- search positions

# Hand-built positions with known answers: (game name, parameters, moves from the start in the
# game's notation, the correct moves in notation, what it checks). The `winning_moves` fixture
# proves answers by exhaustive search, so the tests never trust a hand-made answer alone.
WIN_IN_ONE = [
    ("connect4", {"rows": 6, "cols": 7}, [1, 1, 2, 2, 3, 3], {"4"}, "horizontal four"),
    # O's bottom row 1-3 is cut by the forbidden cell; X's row above it wins in column 4.
    ("connect4", {"rows": 9, "cols": 10, "forbidden": [8, 3]}, [9, 1, 1, 2, 2, 3, 3, 9], {"4"},
     "a stone that skips the forbidden cell completes the four"),
    # Black holds A1-D1 and must place E1 and F1: the win takes both stones of the pair.
    ("connect6", {"size": 10}, ["A1", "A10", "C10", "B1", "C1", "E10", "G10", "D1", "J5",
                                "H8", "J8"], {"E1", "F1"}, "a six that needs both stones"),
]

BLOCK_ONLY = [
    ("connect4", {"rows": 6, "cols": 7}, [1, 1, 2, 2, 3], {"4"}, "block a horizontal three"),
    # Black holds A1-E1; White has placed one stone of its pair and must take F1 with the other.
    ("connect6", {"size": 10}, ["A1", "A10", "C10", "B1", "C1", "E10", "G10", "D1", "E1", "J9"],
     {"F1"}, "block a five with the second stone"),
]

# ----------------------------------------------------------------------------- Connect6 turns


def turn_of(stone_index: int) -> int:
    """Connect6's turn of a stone: turn 0 is Black's single opening stone; turn t > 0 holds
    stones 2t-1 and 2t. Black plays the even turns."""
    return 0 if stone_index == 0 else (stone_index + 1) // 2


def game_order(size: int, black_cells: list[int], white_cells: list[int]) -> list[int]:
    """Interleave the two colours' cells in Connect6 turn order."""
    black, white = list(black_cells), list(white_cells)
    order = []
    for i in range(len(black) + len(white)):
        order.append(black.pop(0) if turn_of(i) % 2 == 0 else white.pop(0))
    return order


def search_settings(**overrides):
    """The search settings of the default tree, with `overrides`."""
    from alphazero.config.settings import default_config
    from alphazero.search.puct import SearchConfig
    return SearchConfig.from_cfg(default_config().mcts, **overrides)


class FirstLegalPlayer:
    """Always the lowest legal action: a player that loses to any search."""

    def __init__(self, game):
        self.game = game

    def reset(self):
        pass  # nothing to forget

    def best_actions(self, states):
        return np.array([self.game.legal_list(s)[0] for s in states])


class ScoredPlayer:
    """Plays the best (or the worst) legal move of each position by a solver's scores of it;
    a reference class that test_optimal_moves subclasses."""

    def __init__(self, states, scores, best: bool):
        self.scores = {state.tobytes(): s for state, s in zip(states, scores)}
        self.best = best

    def reset(self):
        pass  # nothing to forget

    def best_actions(self, states):
        from games.connect4.solver import ILLEGAL_MOVE_SCORE  # the judges' common "illegal" score
        picks = []
        for state in states:
            scores = self.scores[state.tobytes()].astype(float)
            scores[scores == ILLEGAL_MOVE_SCORE] = -np.inf if self.best else np.inf
            picks.append(int(np.argmax(scores) if self.best else np.argmin(scores)))
        return np.array(picks)

# ----------------------------------------------------------------------------- optional packages

# A test of one of OpenSpiel's games runs where the optional open-spiel package is installed.
needs_openspiel = pytest.mark.skipif(OpenSpielGame.unavailable() is not None,
                                     reason="open-spiel is not installed")
