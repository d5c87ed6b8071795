"""How often a player's move keeps the exact game result, judged by an exact solver.

The judges are the games' own (`JUDGE` in a game's package): classic Connect-4 on one fixed
board without a forbidden cell (games/connect4/judge.py: Pons' scores, quick wins high) and
Othello endgames in either rule set (games/othello/judge.py: the final disc difference). The
positions are reached from the start by one of three kinds of play:

  random    uniformly random moves: Connect-4 for a number of plies drawn from `plies`,
            Othello until 10-14 playable empty cells remain;
  early     Connect-4 only: 8-14 uniformly random moves, judged by outcome alone
            (win, draw or loss: exact scores that early cost too many nodes);
  selfplay  pure MCTS at SELFPLAY_PLAYOUTS playing both sides, stopping as `random` does;
  stages    classic Connect-4 only: Pons' six test sets by stage and distance to the end
            (games/core/connect4_stage_sets.py), labelled in advance, each set scored apart.

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
from alphazero.config.settings import SOLVER_KINDS
from alphazero.agent.build import build
from alphazero.agent.spec import AgentSpec
from games import GAMES, ONGOING, GameError, game_judge

SELFPLAY_PLAYOUTS = 1000


def make_judge(game, kind: str):
    """The judge the game declares (games.game_judge) for this kind of position; one
    sentence where there is none."""
    if kind not in SOLVER_KINDS:
        raise ConfigError(f"solver_kind must be one of {', '.join(SOLVER_KINDS)}, not '{kind}'.")
    judge = game_judge(game.name)
    if judge is None:
        raise ConfigError(f"the solver measure needs a game with an exact judge "
                          f"({', '.join(name for name in GAMES if game_judge(name))}), not "
                          f"{game.name}.")
    if kind not in judge.kinds:
        raise ConfigError(f"solver_kind={kind} is not for {game.name}; its judge takes "
                          f"{', '.join(judge.kinds)}.")
    try:
        return judge(game, kind)
    except GameError as error:
        raise ConfigError(str(error)) from None


def solved_positions(game, count: int, kind: str, plies: tuple[int, int], seed: int = 0):
    """`count` positions of this kind as (states, values per action, exact): `exact` is False
    when the values are outcomes (1, 0, -1) rather than scores. `plies` bounds Connect-4's
    random and selfplay positions."""
    judge = make_judge(game, kind)
    targets = judge.targets(kind, plies)
    rng = np.random.default_rng(seed)
    mcts = build(game, AgentSpec.pure_mcts(SELFPLAY_PLAYOUTS, seed)) if kind == "selfplay" else None
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


def stage_sets(game, per_set: int) -> dict[str, tuple[list, list]]:
    """The judge's labelled sets (name -> states, values per action), up to `per_set` each."""
    try:
        return make_judge(game, "stages").stage_sets(game, per_set)
    except GameError as error:
        raise ConfigError(str(error)) from None


def stage_references(game) -> dict:
    """Published agents' mistakes (%) on the stage sets by the self-play simulations that
    trained them, {label: [(simulations, {set: %}), ...]}, as the judge gives them."""
    return make_judge(game, "stages").stage_references


def stage_rates(player, sets: dict[str, tuple[list, list]]) -> dict[str, dict]:
    """`optimal_move_rate` on each set apart."""
    return {name: optimal_move_rate(player, states, values) for name, (states, values) in sets.items()}


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
