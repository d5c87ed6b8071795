"""Matches between any two players (`play_match`, all games at once, colours alternating),
gating during training (`gate_match` plays it, `gate_verdict` decides it), the pure-MCTS
ladder, and a match against a GTP program with each side's seconds per move (`program_row`).
Each match is reported as one row (`result_row`, with a 95% Wilson interval on the win rate);
the `evaluate` command (alphazero.evaluate.command) and `curve` print them.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np
from omegaconf import DictConfig
from tqdm import tqdm

from alphazero.config.errors import ConfigError
from alphazero.search.openings import random_opening_moves
from alphazero.agent.build import build
from alphazero.agent.spec import AgentSpec
from games import DRAW, FIRST_WON, ONGOING


@dataclass
class MatchResult:
    games: int
    wins: int
    draws: int
    losses: int
    # wins, draws, losses of the games the player played as the first player; the rest it
    # played second (one side's weakness hides in a match's totals)
    as_first_player: tuple[int, int, int] = (0, 0, 0)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def draw_rate(self) -> float:
        return self.draws / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """The match score as chess and Elo count it: a win 1, a draw a half."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        n, p = self.games, self.win_rate
        if n == 0:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def match_starts(game, games: int, opening_plies: int, rng) -> list[tuple[np.ndarray, list[int]]]:
    """How each game of a match starts, one start per pair of games (colours swapped): a new
    board (Connect-4 draws one per game) and the `opening_plies` uniformly random moves
    played on it."""
    starts = []
    for i in range(games):
        if i % 2 == 0:
            board = game.new_state(rng)
            try:
                moves = random_opening_moves(game, board, opening_plies, rng)
            except ValueError:
                raise ConfigError(f"eval.opening_plies={opening_plies} random moves end almost "
                                  "every game; use fewer.") from None
        starts.append((board, moves))
    return starts


def opened(game, board: np.ndarray, moves: list[int]) -> np.ndarray:
    state = board.copy()
    for move in moves:
        game.play(state, move)
    return state


def match_openings(game, games: int, opening_plies: int, rng) -> np.ndarray:
    """Start positions of a match (`match_starts`), its moves played."""
    return np.stack([opened(game, board, moves)
                     for board, moves in match_starts(game, games, opening_plies, rng)])


def play_match(game, player, opponent, games: int, seed: int = 0, progress=None,
               opening_plies: int = 0, watch=None) -> MatchResult:
    """`games` games, all at once, `player` taking the first move in the even ones. Each pair
    of games starts from the same position (`match_openings`) with colours swapped. Counts
    are from `player`'s view. Both players are reset first, so a match gives the same result
    whatever was played before it (a ladder row equals that level played alone).
    `watch(game_index, state, action, by_player)` sees every move before it is played.
    A player that declares `plays_from_moves` (a GTP program) is also given each game's
    moves from its new board; a negative action gives that game up (a resignation or a
    fault), and the side that gave it up loses it."""
    player.reset()
    opponent.reset()
    rng = np.random.default_rng(seed)
    starts = match_starts(game, games, opening_plies, rng)
    states = np.stack([opened(game, board, moves) for board, moves in starts])
    moves = [list(opening) for _, opening in starts]
    player_first = np.arange(games) % 2 == 0
    given_up = np.zeros(games, dtype=np.int8)  # 1: by the player, -1: by the opponent
    while True:
        ongoing = np.array([game.status(s) == ONGOING for s in states]) & (given_up == 0)
        if not ongoing.any():
            break
        first_to_move = np.array([game.to_move(s) == 0 for s in states])
        players_turn = first_to_move == player_first
        for side, who in ((player, players_turn), (opponent, ~players_turn)):
            batch = np.flatnonzero(ongoing & who)
            if len(batch):
                asked = ((states[batch], [moves[b] for b in batch])
                         if getattr(side, "plays_from_moves", False) else (states[batch],))
                for b, action in zip(batch, side.best_actions(*asked)):
                    if action < 0:
                        given_up[b] = 1 if side is player else -1
                        continue
                    if watch is not None:
                        watch(b, states[b], int(action), side is player)
                    game.play(states[b], int(action))
                    moves[b].append(int(action))
        if progress is not None:
            finished = sum(game.status(s) != ONGOING or g != 0 for s, g in zip(states, given_up))
            progress.update(finished - progress.n)
    codes = np.array([game.status(s) for s in states])
    drawn = (codes == DRAW) & (given_up == 0)
    won = np.where(given_up != 0, given_up < 0, ~drawn & ((codes == FIRST_WON) == player_first))
    lost = ~drawn & ~won
    return MatchResult(games, int(won.sum()), int(drawn.sum()), int(lost.sum()),
                       tuple(int((kind & player_first).sum()) for kind in (won, drawn, lost)))


@dataclass(frozen=True)
class GateState:
    """Where the gate stands: the pure-MCTS level it plays, and the best win rate a network
    has had there (at first 0: a network without a win is never best)."""
    level: int
    best_rate: float = 0.0


def gate_match(game, eval_cfg: DictConfig, state: GateState, player, best_player=None,
               seed: int = 0) -> MatchResult | None:
    """The gating match: `player` against pure MCTS at the state's level (gate=pure), or
    against the best network (gate=previous; None while there is none yet)."""
    if eval_cfg.gate == "previous":
        opponent = best_player
    else:
        opponent = build(game, AgentSpec.pure_mcts(state.level, seed=seed))
    if opponent is None:
        return None
    return play_match(game, player, opponent, eval_cfg.games, seed,
                      opening_plies=eval_cfg.opening_plies)


def gate_verdict(eval_cfg: DictConfig, state: GateState,
                 result: MatchResult | None) -> tuple[GateState, bool]:
    """The gate's next state, and whether the network becomes `best`.

    gate='pure' (the seed design's rule): a clean sweep raises the level by level_step (no
    cap) and makes it best; a win rate above the best so far at this level also makes it
    best. gate='previous' (AlphaGo Zero's rule): a score (wins + draws/2) of at least
    `threshold` against the best network replaces it; the first network is best at once.
    """
    if result is None:
        return state, True
    if eval_cfg.gate == "previous":
        return state, result.score >= eval_cfg.threshold
    if result.wins == result.games:
        return GateState(state.level + eval_cfg.level_step, 0.0), True
    if result.win_rate > state.best_rate:
        return GateState(state.level, result.win_rate), True
    return state, False


def ladder(game, player, levels, games: int, seed: int = 0, opening_plies: int = 0) -> list[dict]:
    rows = []
    for level in levels:
        with tqdm(total=games, desc=f"vs pure MCTS {level}", unit="game", leave=False) as bar:
            result = play_match(game, player, build(game, AgentSpec.pure_mcts(level, seed + level)),
                                games, seed, bar, opening_plies)
        rows.append(result_row(f"pure MCTS {level}", result) | {"level": level})
    return rows


class TimedPlayer:
    """A player whose moves are timed: `seconds_per_move` is their mean over a match (a
    batch's time shared by its positions)."""

    def __init__(self, player):
        self.player = player
        self.seconds, self.moves = 0.0, 0

    def reset(self) -> None:
        self.player.reset()
        self.seconds, self.moves = 0.0, 0

    def best_actions(self, states: np.ndarray) -> np.ndarray:
        started = time.perf_counter()
        actions = self.player.best_actions(states)
        self.seconds += time.perf_counter() - started
        self.moves += len(actions)
        return actions

    @property
    def last_values(self) -> np.ndarray:
        return self.player.last_values

    @property
    def seconds_per_move(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0


def program_row(game, player, program, games: int, seed: int = 0, opening_plies: int = 0) -> dict:
    """The row of a match against a GTP program (alphazero.evaluate.gtp): the ladder's
    columns, then each side's mean seconds per move, the program's resignations and the
    games it lost by a fault, by kind."""
    timed = TimedPlayer(player)
    with tqdm(total=games, desc=f"vs {program.command}", unit="game", leave=False) as bar:
        result = play_match(game, timed, program, games, seed, bar, opening_plies)
    seconds = {"network": round(timed.seconds_per_move, 6),
               "program": round(program.seconds_per_move, 6)}
    return result_row(program.command, result) | {"seconds_per_move": seconds} | program.report()


def result_row(opponent: str, result: MatchResult) -> dict:
    low, high = result.interval()
    first = list(result.as_first_player)
    second = [total - f for total, f in zip((result.wins, result.draws, result.losses), first)]
    return {"opponent": opponent, **asdict(result), "as_first_player": first,
            "as_second_player": second, "win_rate": round(result.win_rate, 3),
            "ci95": [round(low, 3), round(high, 3)], "score": round(result.score, 3)}
