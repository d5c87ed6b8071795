"""A training run's kept self-play games on the page (`python -m alphazero.serve run=FOLDER`):
checking the run's folder, listing its games, and opening one as a game that can only be
viewed, with the search's value before each move.

The games are the ones alphazero.train.game_log keeps in the run's checkpoint folder. They
are read again on every request, so a run that is still training shows its newest games.
"""
from __future__ import annotations

from pathlib import Path

from alphazero.config.errors import ConfigError
from alphazero.config.presets import named_game
from alphazero.serve.catalog import display_path
from alphazero.serve.session import GameSession, Refusal
from alphazero.train.game_log import FOLDER, read_games
from games import GameError

ALL_SEATS = {0, 1}  # no side is the agent's: nothing moves by itself


def check_run(folder: str) -> Path:
    """The run's checkpoint folder, or one sentence saying why it shows nothing."""
    path = Path(folder)
    if not path.is_dir():
        raise ConfigError(f"run={folder}: there is no such folder; give a training run's "
                          "checkpoint folder, such as checkpoints/othello.")
    if not kept_games(path):
        raise ConfigError(f"run={folder} holds no kept self-play games (a training run keeps "
                          f"its recent games in {display_path(path / FOLDER)}).")
    return path


def kept_games(run: Path) -> list[dict]:
    """The run's kept games that are whole records, newest last."""
    return [game for game in read_games(run) if _whole(game)]


def game_list(run: Path) -> list[dict]:
    """What the page lists of each kept game."""
    return [{"index": g["index"], "network": g["network"], "game": g["game"],
             "result": g["result"], "length": len(g["moves"])} for g in kept_games(run)]


def open_game(run: Path, index) -> GameSession:
    """A kept game replayed on its own board, to be stepped through."""
    game = next((g for g in kept_games(run) if g["index"] == index), None)
    if game is None:
        raise Refusal(f"the run keeps no game {str(index)[:20]} (any more); reload the list.")
    try:
        board = named_game(game["game"], **game["params"])
    except (GameError, TypeError) as error:
        raise Refusal(f"game {index} cannot be set up: {error}") from None
    session = GameSession(game["game"], board, board.new_state(), None,
                          f"network {game['network']} of {display_path(run)}", ALL_SEATS, 2)
    session.setup(game["moves"])
    # the values are each mover's; the page draws them all for the first player
    values = [v if ply.mover == 0 else -v for v, ply in zip(game["values"], session.history)]
    session.replay = {"index": game["index"], "network": game["network"], "values": values}
    return session


def _whole(game: dict) -> bool:
    fields = {"index": int, "network": int, "game": str, "params": dict, "moves": list,
              "values": list, "result": str}
    return all(isinstance(game.get(key), kind) for key, kind in fields.items())
