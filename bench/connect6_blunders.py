"""How often a Connect6 network loses by ignoring a forced cell: a six it could make this
turn, a block of the six the opponent could make next turn, or a win by threats
(games/connect6_threats.py); in its drawn games, which side did the threatening; and how
long the forced cells take to find.

    python bench/connect6_blunders.py [checkpoint=PATH] [level=11000] [games=80]
                                      [game.forced_moves=false] [seed=0]

Plays evaluate's match (the same openings, seeds and players as `python -m
alphazero.evaluate game=connect6 'eval.levels=[LEVEL]' eval.games=GAMES
eval.opening_plies=2`) and counts, for the network's games won, drawn and lost, those in
which one of its stones was not on a forced cell. With forced moves on (the default) the
count is 0 by construction; `game.forced_moves=false` measures the search alone.
`forced_cells_ms` is the time forced_cells took per position of the network's (mean and
slowest, compiling excluded). Prints one JSON line.
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter

from alphazero.config import build_game
from alphazero.evaluate import play_match
from alphazero.players import PureMCTSPlayer, make_player
from alphazero.presets import compose_play
from alphazero.threads import use_search_threads
from games import DRAW, FIRST_WON
from games.connect6_threats import threatened


def main(args: list[str]) -> dict:
    options = dict(a.split("=", 1) for a in args if a.split("=", 1)[0] in ("level", "games"))
    level, games = int(options.get("level", 11000)), int(options.get("games", 80))
    cfg = compose_play(["game=connect6"] + [a for a in args if a.split("=", 1)[0] not in options])
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    player = make_player(game, cfg, "az", cfg.get("checkpoint"), seed=cfg.seed)
    ignored, boards, blocking, seconds = set(), {}, Counter(), []
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
        other = 2 - game.to_move(state)  # the side not to move, 1 Black / 2 White
        if threatened(game.windows, game.stones(state).reshape(-1), other):
            blocking[index, by_player] += 1

    result = play_match(game, player, PureMCTSPlayer(game, level, seed=cfg.seed + level), games,
                        cfg.seed, opening_plies=2, watch=watch)
    outcomes = Counter()
    for index in ignored:
        code = game.status(boards[index])
        won = code != DRAW and (code == FIRST_WON) == (index % 2 == 0)
        outcomes["drawn" if code == DRAW else "won" if won else "lost"] += 1
    drawn = [index for index, state in boards.items() if game.status(state) == DRAW]
    return {"checkpoint": str(cfg.get("checkpoint") or "shipped"), "level": level, "games": games,
            "forced_moves": cfg.game.forced_moves, "wins": result.wins, "draws": result.draws,
            "losses": result.losses,
            "ignored_a_forced_cell": {k: outcomes[k] for k in ("won", "drawn", "lost")},
            "drawn_games_stones_under_threat": {
                who: sum(blocking[index, mine] for index in drawn)
                for who, mine in (("network", True), ("opponent", False))},
            "forced_cells_ms": {"positions": len(seconds),
                                "mean": round(1000 * sum(seconds) / len(seconds), 2),
                                "max": round(1000 * max(seconds), 1)}}

if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
