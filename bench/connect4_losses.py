"""Where a classic Connect-4 agent's lost and drawn games were lost: the exact outcome of every
column at each of the agent's positions, by games/connect4/solver.py.

    python bench/connect4_losses.py [checkpoint=PATH] [level=20000] [games=80] [seed=0]
                                    [nodes=200000000] [+game.solver_per_column=true] ...

Plays evaluate's match (the same openings, seeds and players as `python -m
alphazero.evaluate game=connect4_classic 'eval.levels=[LEVEL]' eval.games=GAMES
eval.opening_plies=2`), keeps the agent's positions and moves, and in each game it did not
win proves every column's outcome (1 win, 0 draw, -1 loss, 2 not proved within `nodes`
nodes) at each of its positions. Prints one JSON line: the match's result and, per game not
won, a row per agent move: stones on the board, the position's best outcome, the outcome of
the column played, and the outcome of every column (2 in "best": some column not proved).
"thrown_at" is the stone count of the first proved row whose played outcome is below its
best, where the game was thrown away (null: the agent started lost, or lost it where
nothing was proved; an unproved row before it may hide an earlier throw).
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np

from alphazero.config.settings import build_game
from alphazero.evaluate.match import play_match
from alphazero.agent.players import PureMCTSPlayer, make_player
from alphazero.config.presets import compose_play
from alphazero.config.threads import use_search_threads
from games import DRAW, FIRST_WON
from games.connect4.solver import ILLEGAL_MOVE_SCORE, UNPROVED, Connect4Solver


def proved_rows(solver, game, moves, node_limit) -> list[dict]:
    rows = []
    for state, action in moves:
        board = game.board(state)
        outcomes = solver.column_outcomes_on_board(board, node_limit)
        legal = outcomes != ILLEGAL_MOVE_SCORE
        known = legal & (outcomes != UNPROVED)
        rows.append({"stones": int(np.count_nonzero(board)),
                     "best": int(outcomes[legal].max()) if known.sum() == legal.sum() else UNPROVED,
                     "played": int(outcomes[action]), "columns": outcomes.tolist()})
    return rows


def thrown_at(rows) -> int | None:
    return next((row["stones"] for row in rows
                 if UNPROVED not in (row["best"], row["played"]) and row["played"] < row["best"]),
                None)


def main(args: list[str]) -> dict:
    own_keys = ("level", "games", "nodes")
    options = dict(a.split("=", 1) for a in args if a.split("=", 1)[0] in own_keys)
    level, games = int(options.get("level", 20000)), int(options.get("games", 80))
    node_limit = int(options.get("nodes", 200_000_000))
    cfg = compose_play(["game=connect4_classic"]
                       + [a for a in args if a.split("=", 1)[0] not in own_keys])
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    player = make_player(game, cfg, "az", cfg.get("checkpoint"), seed=cfg.seed)
    moves, finals = defaultdict(list), {}

    def watch(index, state, action, by_player):
        finals[index] = state  # the match's own row, played on in place: final at the end
        if by_player:
            moves[index].append((state.copy(), action))

    result = play_match(game, player, PureMCTSPlayer(game, level, seed=cfg.seed + level),
                        games, cfg.seed, opening_plies=2, watch=watch)
    solver, report = Connect4Solver(6, 7, table_bits=24), []
    for index in sorted(finals):
        code = game.status(finals[index])
        if code != DRAW and (code == FIRST_WON) == (index % 2 == 0):
            continue  # won
        rows = proved_rows(solver, game, moves[index], node_limit)
        report.append({"game": int(index), "result": "draw" if code == DRAW else "loss",
                       "thrown_at": thrown_at(rows), "moves": rows})
    return {"result": [result.wins, result.draws, result.losses], "nodes": node_limit,
            "not_won": report}


if __name__ == "__main__":
    try:
        print(json.dumps(main(sys.argv[1:])))
    except ValueError as error:  # a bad checkpoint or setting: ConfigError, CheckpointError
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
