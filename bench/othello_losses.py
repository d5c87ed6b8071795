"""Where a course-Othello agent's lost games were lost, and whether proving each move's
outcome (win, draw or loss, games/othello/solver.py's `move_outcomes`) within a node
budget would have seen the losing move.

    python bench/othello_losses.py [checkpoint=PATH] [level=20000] [games=80] [seed=0]
                                   [nodes=20000000]

Plays evaluate's match (the same openings, seeds and players as `python -m
alphazero.evaluate game=othello 'eval.levels=[LEVEL]' eval.games=GAMES
eval.opening_plies=2`), keeps the agent's positions and moves, and in its lost games proves
the outcome of every move of those positions, from the last back, until one position needs
more than `nodes` nodes (each move has the budget). Prints one JSON line; per lost game, the
final disc difference and a row per position: playable empty cells, the position's outcome
for the agent (1 won, 0 drawn, -1 lost), the outcome of the move it played, and the nodes
used. A row with a position won or drawn and a move that loses is where the game was thrown
away, and the proof saw it within the budget. `first_unproved` is the position before
those: how many of its moves were proved to win, draw or lose, and the outcome of the move
played there (2: not proved) with its nodes. Also per lost game: the agent's discs at the
end, and the value (-1 to 1) its search gave each of its positions, with their playable
empty cells.
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
from games.othello.solver import ILLEGAL, UNKNOWN, OthelloSolver


def proved_backwards(solver, game, moves, node_limit):
    """([(playable empty cells, position's outcome, played move's outcome, nodes)] for the
    (position, move) pairs, the last first, up to the first in which some move's outcome
    takes more than the budget; and what was proved in that one)."""
    rows = []
    for state, action in reversed(moves):
        outcomes = solver.move_outcomes(state, node_limit)
        legal = outcomes != ILLEGAL
        if np.any(outcomes[legal] == UNKNOWN):
            counts = {name: int((outcomes[legal] == code).sum()) for name, code in
                      (("won", 1), ("drawn", 0), ("lost", -1), ("unknown", UNKNOWN))}
            return rows, {"empties": game.playable_empties(state), "moves": counts,
                          "played": int(outcomes[action]),
                          "played_nodes": int(solver.last_move_nodes[action])}
        rows.append((game.playable_empties(state), int(outcomes[legal].max()),
                     int(outcomes[action]), solver.last_nodes))
    return rows, None


def main(args: list[str]) -> dict:
    own_keys = ("level", "games", "nodes")
    options = dict(a.split("=", 1) for a in args if a.split("=", 1)[0] in own_keys)
    level, games = int(options.get("level", 20000)), int(options.get("games", 80))
    node_limit = int(options.get("nodes", 20_000_000))
    cfg = compose_play(["game=othello"] + [a for a in args if a.split("=", 1)[0] not in own_keys])
    use_search_threads(cfg.threads)
    game = build_game(cfg)
    player = make_player(game, cfg, "az", cfg.get("checkpoint"), seed=cfg.seed)
    moves, values, finals = defaultdict(list), defaultdict(list), {}
    batch_row = [0]  # watch sees a search's moves in its batch's order, right after it
    search = player.best_actions

    def best_actions(states):
        batch_row[0] = 0
        return search(states)

    player.best_actions = best_actions

    def watch(index, state, action, by_player):
        finals[index] = state  # the match's own row, played on in place: final at the end
        if by_player:
            moves[index].append((state.copy(), action))
            values[index].append((game.playable_empties(state),
                                  round(float(player.last_values[batch_row[0]]), 2)))
            batch_row[0] += 1

    result = play_match(game, player, PureMCTSPlayer(game, level, seed=cfg.seed + level), games,
                        cfg.seed, opening_plies=2, watch=watch)
    solver = OthelloSolver(game)
    lost = []
    for index in sorted(finals):
        code = game.status(finals[index])
        player_first = index % 2 == 0
        if code == DRAW or (code == FIRST_WON) == player_first:
            continue
        colour = 1 if player_first else -1  # Black's sign in board() and score()
        rows, horizon = proved_backwards(solver, game, moves[index], node_limit)
        lost.append({"game": int(index), "final_margin": game.score(finals[index]) * colour,
                     "final_discs": int((game.board(finals[index]) == colour).sum()),
                     "empties_value_of_each_search": values[index],
                     "empties_outcome_move_nodes": rows, "first_unproved": horizon})
    return {"checkpoint": str(cfg.get("checkpoint") or "shipped"), "level": level, "games": games,
            "endgame_solver_empties": cfg.game.endgame_solver_empties, "nodes": node_limit,
            "wins": result.wins, "draws": result.draws, "losses": result.losses,
            "lost_games": lost}


if __name__ == "__main__":
    try:
        print(json.dumps(main(sys.argv[1:])))
    except ValueError as error:  # a bad checkpoint or setting: ConfigError, CheckpointError
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
