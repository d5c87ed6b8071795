"""Command line for the game cores: `python -m games perft|playouts GAME [key=value ...] N`."""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from games import GameError, make_game
from games.core.cli import parse_overrides
from games.core.perft import compiled
from games.core.rng import make_rng

USAGE = ("usage: python -m games perft GAME [key=value ...] DEPTH\n"
         "       python -m games playouts GAME [key=value ...] SECONDS")


def _positive_number(text: str, what: str, cast):
    try:
        value = cast(text)
    except ValueError:
        raise GameError(f"{what} must be a number, not '{text}'.") from None
    if value < 0:
        raise GameError(f"{what} must not be negative, got {text}.")
    return value


def start_position(name: str, words: list[str]):
    params = parse_overrides(words)
    moves = params.pop("moves", None) or []
    if not isinstance(moves, list):
        moves = [moves]
    game = make_game(name, **params)
    state = game.new_state(np.random.default_rng(0))
    game.play_moves(state, moves)
    return game, state


def cmd_perft(name: str, words: list[str], depth_text: str) -> None:
    depth = _positive_number(depth_text, "perft depth", int)
    game, state = start_position(name, words)
    kernels = compiled(game)
    for d in range(1, depth + 1):
        print(f"perft {d} {kernels.perft(state, d, game.num_actions)}", flush=True)


def cmd_playouts(name: str, words: list[str], seconds_text: str) -> None:
    seconds = _positive_number(seconds_text, "playout time in seconds", float)
    game, state = start_position(name, words)
    first_call = time.perf_counter()  # compiles the kernels, or loads them from Numba's cache
    kernels = compiled(game)
    rng = make_rng(12345)
    outcomes = np.zeros(4, dtype=np.int64)
    kernels.run_playouts(state, rng, 1, np.zeros(4, dtype=np.int64))
    first_call = time.perf_counter() - first_call
    games = plies = 0
    batch = 256
    began = time.perf_counter()
    while True:
        plies += kernels.run_playouts(state, rng, batch, outcomes)
        games += batch
        elapsed = time.perf_counter() - began
        if elapsed >= seconds:
            break
        batch = min(batch * 2, 1 << 20) if elapsed < seconds / 8 else batch
    print(json.dumps({
        "game": name, "params": game.params(), "playouts_per_s": round(games / elapsed),
        "mean_length": round(plies / games, 3), "first_player_win": round(outcomes[1] / games, 5),
        "draw": round(outcomes[3] / games, 5), "second_player_win": round(outcomes[2] / games, 5),
        "playouts": games, "seconds": round(elapsed, 3), "first_call_s": round(first_call, 2)}))


def main(argv: list[str]) -> int:
    commands = {"perft": cmd_perft, "playouts": cmd_playouts}
    if len(argv) < 3 or argv[0] not in commands:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        commands[argv[0]](argv[1], argv[2:-1], argv[-1])
    except GameError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
