"""How often a Connect6 network loses by ignoring a forced cell: a six it could make this
turn, a block of the six the opponent could make next turn, or a win by threats
(games/connect6/threats.py); in its drawn games, which side did the threatening, whether a
deeper threat search than the agent's finds a win it missed, and when its last open window
closed; and how long the forced cells take to find.

    python scripts/connect6_blunders.py [checkpoint=PATH] [level=11000] [games=80]
                                      [search_alone=true] [seed=0]
                                      [deep_turns=8] [deep_budget=1000000]

Plays evaluate's match (the same openings, seeds and players as `python -m
alphazero.evaluate game=connect6 'eval.levels=[LEVEL]' eval.games=GAMES
eval.opening_plies=2`) and counts, for the network's games won, drawn and lost, those in
which one of its stones was not on a forced cell. With forced moves on (the default) the
count is 0 by construction; `search_alone=true` measures the search alone.
`forced_cells_ms` is the time forced_cells took per position of the network's (mean and
slowest, compiling excluded). `drawn_games_deeper_wins` counts the drawn games in which,
at the start of one of the network's turns with no six threatened against it, the
double-threat search (rule 4) proves a win when given `deep_turns` turns and `deep_budget`
pairs (the agent's: THREAT_TURNS and PLACEMENT_BUDGET). `drawn_games_last_window_closed`
lists, for each drawn game, the empty cells left at the first of the network's turns with no
window open to it (six cells in a line holding no opponent stone): from then on only a draw
or a loss remains. Prints one JSON line.
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter

import numpy as np

from alphazero.config.settings import build_game
from alphazero.evaluate.match import play_match
from alphazero.agent.agent import PureMCTSAgent
from alphazero.agent.build import build_agent
from alphazero.config.presets import compose_play
from alphazero.config.threads import use_search_threads
from games import DRAW, FIRST_WON
from games.connect6.rules import NONE, OWN, PLY
from games.connect6.threats import threatened, winning_cells
from games.core.stone_board import EMPTY


def probe_drawn_game(game, turn_starts, deep_turns: int, deep_budget: int):
    """(whether the double-threat search with `deep_turns` turns and `deep_budget` pairs
    proves a win at one of `turn_starts` (side to move, flat board) where no six is
    threatened against the mover; the empty cells at the first of them with no window open
    to the mover, or None)."""
    deeper_win = any(
        not threatened(game.windows, board, 3 - mover)
        and winning_cells(game.windows, game.windows_through, board, mover, deep_turns,
                          budget=deep_budget).any()
        for mover, board in turn_starts)
    closed = next((int((board == EMPTY).sum()) for mover, board in turn_starts
                   if not ((board[game.windows] == 3 - mover).sum(axis=1) == 0).any()), None)
    return deeper_win, closed


def main(args: list[str]) -> dict:
    names = ("level", "games", "deep_turns", "deep_budget")
    options = dict(a.split("=", 1) for a in args if a.split("=", 1)[0] in names)
    level, games = int(options.get("level", 11000)), int(options.get("games", 80))
    deep_turns = int(options.get("deep_turns", 8))
    deep_budget = int(options.get("deep_budget", 1_000_000))
    cfg = compose_play(["game=connect6"] + [a for a in args if a.split("=", 1)[0] not in options])
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    player = build_agent(game, cfg, "az", cfg.get("checkpoint"), seed=cfg.seed)
    ignored, boards, blocking, seconds = set(), {}, Counter(), []
    turn_starts = {}  # game -> the boards at the start of the network's turns, in order
    game.compile_forced_cells()

    def watch(index, state, action, by_player):
        boards[index] = state  # the match's own row, played on in place: final at the end
        forced = None
        if by_player:
            start = time.perf_counter()
            forced = game.forced_cells(state)
            seconds.append(time.perf_counter() - start)
        if forced is not None and not forced[action]:
            ignored.add(index)
        board = game.stones(state).reshape(-1).astype(np.int64)  # a copy: the row plays on
        if by_player and state[OWN] == NONE and state[PLY] > 0:
            turn_starts.setdefault(index, []).append((game.to_move(state) + 1, board))
        other = 2 - game.to_move(state)  # the side not to move, 1 Black / 2 White
        if threatened(game.windows, board, other):
            blocking[index, by_player] += 1

    result = play_match(game, player, PureMCTSAgent(game, level, seed=cfg.seed + level), games,
                        cfg.seed, opening_plies=2, watch=watch)
    outcomes = Counter()
    for index in ignored:
        code = game.status(boards[index])
        won = code != DRAW and (code == FIRST_WON) == (index % 2 == 0)
        outcomes["drawn" if code == DRAW else "won" if won else "lost"] += 1
    drawn = [index for index, state in boards.items() if game.status(state) == DRAW]
    probes = [probe_drawn_game(game, turn_starts.get(index, []), deep_turns, deep_budget)
              for index in drawn]
    return {"checkpoint": str(cfg.get("checkpoint") or "shipped"), "level": level, "games": games,
            "search_alone": cfg.search_alone, "wins": result.wins, "draws": result.draws,
            "losses": result.losses,
            "ignored_a_forced_cell": {k: outcomes[k] for k in ("won", "drawn", "lost")},
            "drawn_games_stones_under_threat": {
                who: sum(blocking[index, mine] for index in drawn)
                for who, mine in (("network", True), ("opponent", False))},
            "drawn_games_deeper_wins": {"turns": deep_turns, "budget": deep_budget,
                                        "games": sum(won for won, _ in probes)},
            "drawn_games_last_window_closed": [closed for _, closed in probes],
            "forced_cells_ms": {"positions": len(seconds),
                                "mean": round(1000 * sum(seconds) / len(seconds), 2),
                                "max": round(1000 * max(seconds), 1)}}

if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
