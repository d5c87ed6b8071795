"""How often a player picks a game-theoretically optimal move, judged by an exact solver.

Classic Connect-4 only (any board the solver fits, no forbidden cell). The test positions
are the usual kind for Connect-4 solvers: a uniformly random number of uniformly random
moves from the empty board, kept when the game is still on, when the solver settles every
move within its node budget, and when the choice matters (not every legal move scores the
same). The player answers all positions in one batch; a move counts as

  optimal          its exact score is the position's best (wins fastest, loses slowest), and
  outcome-keeping  it keeps the position's win / draw / loss value (the usual, looser test).

The misses are split into slower wins, faster losses (outcome kept, score not) and dropped
outcomes, which tells a player that cannot count plies from one that misses tactics.
"""
from __future__ import annotations

import numpy as np

from alphazero.config import ConfigError
from games import ONGOING
from games.connect4_solver import ILLEGAL_MOVE_SCORE, Connect4Solver

NODE_LIMIT = 5_000_000  # per position; deeper positions (few stones) are skipped


def check_supported(game) -> None:
    if game.name != "connect4" or game.forbidden is not None or len(set(game.rows)) > 1 \
            or len(set(game.cols)) > 1:
        raise ConfigError("the optimal-move measure needs Connect-4 on one fixed board "
                          "without a forbidden cell (e.g. game=connect4_classic).")


def random_positions(game, solver: Connect4Solver, count: int, plies: tuple[int, int],
                     seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """`count` positions as (states, move scores per position)."""
    rng = np.random.default_rng(seed)
    states, scores = [], []
    attempts = 0
    while len(states) < count:
        attempts += 1
        if attempts > 50 * count:
            raise ConfigError(f"found only {len(states)} usable positions in {attempts} tries; "
                              "widen solver_plies.")
        state, moves = game.new_state(), []
        for _ in range(rng.integers(plies[0], plies[1] + 1)):
            action = int(rng.choice(game.legal_list(state)))
            game.play(state, action)
            moves.append(action)
            if game.status(state) != ONGOING:
                break
        if game.status(state) != ONGOING:
            continue
        move_scores = solver.move_scores(moves, node_limit=NODE_LIMIT)
        if move_scores is None:
            continue
        legal = move_scores[move_scores != ILLEGAL_MOVE_SCORE]
        if legal.min() == legal.max():
            continue
        states.append(state)
        scores.append(move_scores)
    return states, scores


def optimal_move_rate(player, states: list[np.ndarray], scores: list[np.ndarray]) -> dict:
    """The player's share of optimal and of outcome-keeping moves on these positions, and
    its misses by kind (counts), independent of what the player searched before."""
    player.reset()
    actions = player.best_actions(np.stack(states))
    optimal = keeping = slower_wins = faster_losses = 0
    for action, move_scores in zip(actions, scores):
        best, got = move_scores.max(), move_scores[action]
        optimal += got == best
        kept = np.sign(got) == np.sign(best)
        keeping += kept
        slower_wins += kept and got < best and best > 0
        faster_losses += kept and got < best and best < 0
    n = len(states)
    return {"positions": n, "optimal": round(optimal / n, 3), "outcome_keeping": round(keeping / n, 3),
            "slower_wins": int(slower_wins), "faster_losses": int(faster_losses),
            "dropped": int(n - keeping)}
