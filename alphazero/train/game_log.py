"""A training run's recent self-play games, kept as move lists to watch the run by.

They live in `<checkpoint folder>/games/` (checkpoints/<run_name>/games/, kept across
`train.resume=true`) as JSON lines, one game a line, in files named by the index of their
first game. Each `write` appends whole lines to the newest file in one call, so a run killed
at any moment leaves at most a torn last line, which `read_games` skips (and the next `write`
ends before appending). The files rotate: a new one starts once the newest holds a quarter of
the bound, and while the files hold more than the bound the oldest goes.

A game, as `write` takes it and `read_games` gives it back:

    {"index": 1234,                  # the game's number in the run, from 0
     "network": 56,                  # the version of the weights that played its last move:
                                     # the weights after that many training rounds
     "game": "connect4_classic",     # the config the run was started with (game=NAME)
     "params": {"rows": 6, ...},     # the board it was played on: make_game(name, **params)
                                     # starts it (a board drawn per game, its own)
     "moves": ["4", "4", ...],       # every move in the game's notation, passes included
     "values": [0.12, -0.08, ...],   # the search's root value before each move, from the view
                                     # of the side to move, in [-1, 1]; 0 for random opening
                                     # moves (selfplay.opening_plies), which no search chose
     "result": "black won"}          # "black won" (the first player), "white won" or "draw"
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from alphazero.nn.checkpoint import save_text_atomic
from alphazero.workers.selfplay import GameRecord
from games import DRAW, FIRST_WON, SECOND_WON

FOLDER = "games"
FILES_PER_BOUND = 4  # the files a full log spans: the oldest quarter goes at a time
RESULTS = {FIRST_WON: "black won", SECOND_WON: "white won", DRAW: "draw"}


def entry(game, config_name: str, record: GameRecord, index: int) -> dict:
    """A finished self-play game as the log keeps it: its moves replayed from its start to
    write each in the game's notation."""
    state = record.start.copy()
    params = game.board_params(state)
    moves = []
    for action in record.moves:
        moves.append(game.format_move(state, int(action)))
        game.play(state, int(action))
    values = np.clip(record.move_values, -1.0, 1.0).round(3).tolist()
    return {"index": index, "network": record.network, "game": config_name, "params": params,
            "moves": moves, "values": values, "result": RESULTS[record.result]}


def write(run_dir, games: list[dict], max_bytes: int) -> None:
    """Append `games` (oldest first, as `read_games` gives them back) to the log of the run
    whose checkpoint folder is `run_dir`, then drop the oldest files beyond `max_bytes`."""
    if not games:
        return
    folder = Path(run_dir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    files = _files(folder)
    if not files or files[-1].stat().st_size >= max_bytes / FILES_PER_BOUND:
        files.append(folder / f"games_{games[0]['index']:09d}.jsonl")
    text = _lines(games)
    with open(files[-1], "ab") as stream:
        if stream.tell() and not _ends_a_line(files[-1]):
            text = "\n" + text  # a killed run's torn line stays a line of its own
        stream.write(text.encode())
    sizes = [path.stat().st_size for path in files]
    while len(files) > 1 and sum(sizes) > max_bytes:
        files.pop(0).unlink()
        sizes.pop(0)


def forget_from(run_dir, index: int) -> None:
    """Drop the kept games numbered `index` or more: a run resumed from its last checkpoint
    plays those numbers again (and a fresh run, from 0, starts an empty log)."""
    for path in reversed(_files(Path(run_dir) / FOLDER)):
        games = _read(path)
        kept = [g for g in games if g["index"] < index]
        if len(kept) == len(games):
            return
        if kept:
            save_text_atomic(_lines(kept), path)
        else:
            path.unlink()


def read_games(run_dir) -> list[dict]:
    """Every kept game of the run whose checkpoint folder is `run_dir`, newest last; none
    when it kept none."""
    return [g for path in _files(Path(run_dir) / FOLDER) for g in _read(path)]


def _lines(games: list[dict]) -> str:
    return "".join(json.dumps(g, separators=(",", ":")) + "\n" for g in games)


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("games_*.jsonl"))


def _read(path: Path) -> list[dict]:
    try:
        text = path.read_bytes()
    except FileNotFoundError:  # the run dropped it since it was listed
        return []
    games = []
    for line in text.splitlines():
        try:
            game = json.loads(line)
        except ValueError:
            continue  # the torn last line of a killed run
        if isinstance(game, dict):
            games.append(game)
    return games


def _ends_a_line(path: Path) -> bool:
    with open(path, "rb") as stream:
        stream.seek(-1, os.SEEK_END)
        return stream.read(1) == b"\n"
