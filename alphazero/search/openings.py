"""Random openings: a few uniformly random moves, none of which ends the game. Matches start
from them (`eval.opening_plies`), so that two deterministic players meet varied games;
self-play may too (`selfplay.opening_plies`), so that the network learns the positions such
openings lead to."""
from __future__ import annotations

import numpy as np

from alphazero.config.errors import ConfigError
from games import ONGOING


def random_opening_moves(game, start: np.ndarray, plies: int, rng, tries: int = 1000) -> list[int]:
    """`plies` uniformly random moves from `start`, none of which ends the game."""
    for _ in range(tries):
        board, moves = start.copy(), []
        for _ in range(plies):
            moves.append(int(rng.choice(game.legal_list(board))))
            game.play(board, moves[-1])
            if game.status(board) != ONGOING:
                break  # the game ended inside the opening: draw another
        else:
            return moves
    raise ConfigError(f"{plies} random opening moves end almost every game; use fewer.")


def random_opening(game, start: np.ndarray, plies: int, rng) -> np.ndarray:
    """`start` after `plies` uniformly random moves, none of which ends the game."""
    board = start.copy()
    for move in random_opening_moves(game, start, plies, rng):
        game.play(board, move)
    return board
