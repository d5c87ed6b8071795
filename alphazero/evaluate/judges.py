"""How often a player's move keeps the exact game result, judged by an exact solver.

Two judges: classic Connect-4 on one fixed board without a forbidden cell
(games.connect4.solver: Pons' scores, quick wins high) and Othello endgames in either rule set
(games.othello.solver: the final disc difference). The positions are reached from the start
by one of three kinds of play:

  random    uniformly random moves: Connect-4 for a number of plies drawn from `plies`,
            Othello until ENDGAME_EMPTIES playable empty cells remain (drawn in that range);
  early     Connect-4 only: EARLY_PLIES uniformly random moves, judged by outcome alone
            (win, draw or loss: exact scores that early cost too many nodes);
  selfplay  pure MCTS at SELFPLAY_PLAYOUTS playing both sides, stopping as `random` does.

A position is kept when the game is still on, the solver settles every move within its
budget, the choice matters (not every legal move has the same value) and it is new. The
player answers all positions in one batch; its move counts as

  optimal          its exact value is the position's best (not measured by `early`), and
  outcome-keeping  it keeps the position's win / draw / loss value.

The misses that keep the outcome are split into weaker wins (a slower win in Connect-4, a
smaller margin in Othello) and worse losses; the rest are dropped outcomes (game-losing
mistakes).
"""
from __future__ import annotations

import numpy as np

from alphazero.config.errors import ConfigError
from alphazero.agent.agent import PureMCTSAgent
from games import ONGOING
from games.connect4.solver import Connect4Solver
from games.othello.solver import OthelloSolver

KINDS = ("random", "early", "selfplay")
NODE_LIMIT = 5_000_000  # Connect-4 exact scores, per position; deeper positions are skipped
OUTCOME_NODE_LIMIT = 200_000_000  # Connect-4 outcomes only (early): a few minutes at most
EARLY_PLIES = (8, 14)
ENDGAME_EMPTIES = (10, 14)  # Othello: playable empty cells (the course rules' corners not counted)
SELFPLAY_PLAYOUTS = 1000


class Connect4Judge:
    """Each column's Pons score (or with `outcome_only` its sign) after a number of plies."""

    def __init__(self, game, outcome_only: bool):
        self.solver = Connect4Solver(game.rows[0], game.cols[0])
        self.outcome_only = outcome_only
        self.node_limit = OUTCOME_NODE_LIMIT if outcome_only else NODE_LIMIT

    def reached(self, state, moves, target) -> bool:
        return len(moves) >= target

    def values(self, state, moves):
        return self.solver.move_scores(moves, self.node_limit, self.outcome_only)


class OthelloJudge:
    """Each action's exact final disc difference once `target` playable cells are empty."""
    outcome_only = False

    def __init__(self, game):
        self.solver = OthelloSolver(game)

    def reached(self, state, moves, target) -> bool:
        return self.solver.game.playable_empties(state) <= target

    def values(self, state, moves):
        return self.solver.move_values(state)


def check_supported(game, kind: str) -> None:
    """Refuse a game or kind the judges cannot measure, in one sentence."""
    if kind not in KINDS:
        raise ConfigError(f"solver_kind must be one of {', '.join(KINDS)}, not '{kind}'.")
    if game.name == "othello":
        if kind == "early":
            raise ConfigError("solver_kind=early is for Connect-4; Othello is judged in the "
                              "endgame (random or selfplay).")
        return
    if game.name != "connect4" or game.forbidden is not None or len(set(game.rows)) > 1 \
            or len(set(game.cols)) > 1:
        raise ConfigError("the solver measure needs Othello, or Connect-4 on one fixed board "
                          "without a forbidden cell (e.g. game=connect4_classic).")


def make_judge(game, kind: str):
    check_supported(game, kind)
    if game.name == "othello":
        return OthelloJudge(game)
    return Connect4Judge(game, outcome_only=kind == "early")


def solved_positions(game, count: int, kind: str, plies: tuple[int, int], seed: int = 0):
    """`count` positions of this kind as (states, values per action, exact): `exact` is False
    when the values are outcomes (1, 0, -1) rather than scores. `plies` bounds Connect-4's
    random and selfplay positions."""
    judge = make_judge(game, kind)
    targets = ENDGAME_EMPTIES if game.name == "othello" else EARLY_PLIES if kind == "early" \
        else plies
    rng = np.random.default_rng(seed)
    mcts = PureMCTSAgent(game, SELFPLAY_PLAYOUTS, seed=seed) if kind == "selfplay" else None
    states, values, seen = [], [], set()
    attempts = 0
    while len(states) < count:
        attempts += 1
        if attempts > 50 * count:
            raise ConfigError(f"found only {len(states)} usable positions in {attempts} tries; "
                              "widen solver_plies.")
        target = rng.integers(targets[0], targets[1] + 1)
        state, moves = game.new_state(), []
        while game.status(state) == ONGOING and not judge.reached(state, moves, target):
            action = int(mcts.best_actions(state)[0]) if mcts else \
                int(rng.choice(game.legal_list(state)))
            game.play(state, action)
            moves.append(action)
        if game.status(state) != ONGOING or state.tobytes() in seen:
            continue
        seen.add(state.tobytes())
        move_values = judge.values(state, moves)
        if move_values is None:
            continue
        legal = move_values[game.legal_mask(state)]
        if legal.min() == legal.max():
            continue
        states.append(state)
        values.append(move_values)
    return states, values, not judge.outcome_only


def optimal_move_rate(player, states: list[np.ndarray], values: list[np.ndarray],
                      exact: bool = True) -> dict:
    """The player's share of optimal (when the values are `exact`) and of outcome-keeping
    moves on these positions, and its misses by kind (counts), independent of what the
    player searched before."""
    player.reset()
    actions = player.best_actions(np.stack(states))
    optimal = keeping = weaker_wins = worse_losses = 0
    for action, move_values in zip(actions, values):
        best, got = move_values.max(), move_values[action]  # illegal actions score lowest
        optimal += got == best
        kept = np.sign(got) == np.sign(best)
        keeping += kept
        weaker_wins += kept and got < best and best > 0
        worse_losses += kept and got < best and best < 0
    n = len(states)
    rates = {"positions": n, "outcome_keeping": round(keeping / n, 3), "dropped": int(n - keeping)}
    if exact:
        rates |= {"optimal": round(optimal / n, 3), "weaker_wins": int(weaker_wins),
                  "worse_losses": int(worse_losses)}
    return rates
