"""Any GTP v2 program as a match opponent: `opponent=gtp:COMMAND` on `python -m
alphazero.evaluate` and `python -m alphazero.curve`.

`GtpAgent` is a player for `alphazero.evaluate.match.play_match` that declares
`plays_from_moves`, so the match gives it each game's moves from the new board along with
the positions. It plays them to one program process (`play COLOUR MOVE` in the game's own
notation, black the first player) and then asks `genmove COLOUR`. One process serves every
game of a match: when the program's board does not hold the game asked about, it gets
`clear_board` and that game's moves so far.

Real programs differ in small ways, and the agent copes with them:
- where the program lists `set_game`, it gets `set_game NAME key=value ...` (this project's
  engine); one that refuses that gets `set_game NAME` in the spelling its `list_games` gives
  (GRhino: Othello), and then `boardsize N` on a square board where it lists boardsize;
- a program that refuses `play COLOUR pass` is taken to pass by itself (GRhino does);
- `resign` loses the game; so does an answer that is no legal move, a refusal of a legal
  move, a crash or a silence past `gtp.move_seconds`, each counted by kind in `report()`.
  A program that crashed or fell silent is started again for the next game.
"""
from __future__ import annotations

import json
import time

import numpy as np

from alphazero.config.errors import ConfigError
from alphazero.config.settings import GTP_OPPONENT
from alphazero.evaluate.gtp_program import FAILURE_KINDS, GtpProgram, ProgramFailure
from games import GameError

GIVES_UP = -1  # the action that gives a game up (play_match: a negative action loses it)
COLOURS = ("black", "white")  # GTP's colours; black is the first player in every game
FORFEIT_KINDS = ("illegal",) + FAILURE_KINDS
NOTES_KEPT = 20  # forfeits described in the report; the counts cover them all


class IllegalAnswer(Exception):
    """The program answered a move that is not legal here, or refused a legal one."""

    kind = "illegal"


def program_command(opponent) -> str | None:
    """The program's command in `opponent=gtp:COMMAND`; None for any other opponent."""
    if isinstance(opponent, str) and opponent.startswith(GTP_OPPONENT):
        return opponent[len(GTP_OPPONENT):].strip()
    return None


def program_opponent(game, opponent: str, gtp) -> GtpAgent:
    """The GTP program `opponent=gtp:COMMAND` names, started and set up for `game`, with the
    time limits of the settings' `gtp:` section."""
    return GtpAgent(game, program_command(opponent), gtp.move_seconds, gtp.start_seconds)


def check_fixed_board(game) -> None:
    """A program is told the game's moves from its new board, so that board must be the
    same in every game (Connect-4 can draw one per game)."""
    first = game.new_state(np.random.default_rng(0))
    if any(not np.array_equal(game.new_state(np.random.default_rng(seed)), first)
           for seed in range(1, 32)):
        raise ConfigError(f"a GTP opponent plays one fixed board, but {game.name} with "
                          f"{game.params()} draws a board for each game; give it one board.")


def game_parameter(value) -> str:
    """A parameter's value as set_game reads it (YAML: 6, [4,4], null, standard)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


class GtpAgent:
    """`command` runs the program; `move_seconds` bounds each answer during a game,
    `start_seconds` the first answer after a start. A program that cannot be started and
    set up for `game` at first is a ConfigError."""

    plays_from_moves = True  # play_match passes each game's moves with its position

    def __init__(self, game, command: str, move_seconds: float, start_seconds: float):
        check_fixed_board(game)
        self.game, self.command = game, command
        self.move_seconds, self.start_seconds = move_seconds, start_seconds
        self.program: GtpProgram | None = None
        try:
            self._start()
            self.identity = self._identity()
        except ProgramFailure as failure:
            self.close()
            raise ConfigError(f"opponent=gtp:{command}: {failure}") from None
        self.reset()

    def __enter__(self) -> GtpAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def reset(self) -> None:
        """Start a match's counts afresh (the program's board is cleared before its next
        move)."""
        self.forfeits = dict.fromkeys(FORFEIT_KINDS, 0)
        self.notes: list[str] = []
        self.resignations = 0
        self.genmove_seconds, self.genmoves = 0.0, 0
        self.last_values = np.zeros(0, dtype=np.float32)
        self._board: list[int] | None = None  # the moves the program's board holds
        self._position = None  # the state those moves lead to

    @property
    def seconds_per_move(self) -> float:
        """Mean seconds of the program's answered genmove commands this match."""
        return self.genmove_seconds / self.genmoves if self.genmoves else 0.0

    def report(self) -> dict:
        return {"program": self.identity, "resignations": self.resignations,
                "forfeits": dict(self.forfeits), "forfeit_notes": list(self.notes)}

    def best_actions(self, states: np.ndarray, moves: list[list[int]]) -> np.ndarray:
        """The program's move in each position, `moves[b]` the moves that led to states[b]
        from the new board; GIVES_UP where it resigned or lost the game by a fault."""
        actions = np.empty(len(states), dtype=np.int64)
        for b, (state, history) in enumerate(zip(states, moves)):
            try:
                actions[b] = self._move(state, list(history))
            except (IllegalAnswer, ProgramFailure) as failure:
                actions[b] = GIVES_UP
                self._forfeit(failure)
        self.last_values = np.zeros(len(states), dtype=np.float32)  # a program tells no value
        return actions

    def close(self, ask_to_quit: bool = True) -> None:
        if self.program is not None:
            self.program.close(ask_to_quit)
            self.program = None

    # --- one move -----------------------------------------------------------------------
    def _move(self, state: np.ndarray, history: list[int]) -> int:
        if self.program is None:
            self._start()
        position = self._sync(history)
        if not np.array_equal(position, state):
            raise ValueError("the moves given to the GTP opponent do not lead to its position.")
        colour = COLOURS[self.game.to_move(position)]
        started = time.perf_counter()
        ok, answer = self.program.ask(f"genmove {colour}", self.move_seconds)
        self.genmove_seconds += time.perf_counter() - started
        self.genmoves += 1
        if not ok:
            raise IllegalAnswer(f"it refused genmove {colour}: {answer}")
        if answer.lower() == "resign":
            self.resignations += 1
            return GIVES_UP
        try:
            action = self.game.parse_move(position, answer)
        except GameError as error:
            raise IllegalAnswer(f"it answered '{answer[:40]}' to genmove {colour}: "
                                f"{error}") from None
        self._record(action)
        return action

    def _sync(self, history: list[int]) -> np.ndarray:
        """Bring the program's board to `history`: the moves it lacks, after a clear_board
        where it holds another game."""
        if self._board is None or history[:len(self._board)] != self._board:
            self._ask_ok("clear_board")
            self._board, self._position = [], self.game.new_state()
        for action in history[len(self._board):]:
            colour = COLOURS[self.game.to_move(self._position)]
            move = self.game.format_move(self._position, action)
            ok, reason = self.program.ask(f"play {colour} {move}", self.move_seconds)
            if not ok and move.lower() != "pass":  # a refused pass: it passes by itself
                raise IllegalAnswer(f"it refused play {colour} {move}, a legal move: {reason}")
            self._record(action)
        return self._position

    def _record(self, action: int) -> None:
        self.game.play(self._position, action)
        self._board.append(action)

    def _forfeit(self, failure: Exception) -> None:
        self.forfeits[failure.kind] += 1
        if len(self.notes) < NOTES_KEPT:
            self.notes.append(f"{failure.kind}: {failure}")
        self._board = None  # its board is unknown now
        if isinstance(failure, ProgramFailure):
            self.close(ask_to_quit=False)  # started again for the next game

    # --- starting and setting up --------------------------------------------------------
    def _start(self) -> None:
        self.program = GtpProgram(self.command, self.start_seconds)
        self._board = None
        try:
            self._set_up()
        except ProgramFailure:
            self.close()
            raise

    def _ask_ok(self, command: str) -> str:
        """The answer to a command the program must accept; a refusal breaks the protocol."""
        ok, answer = self.program.ask(command, self.move_seconds)
        if not ok:
            raise ProgramFailure("crash", f"it refused '{command}': {answer}")
        return answer

    def _set_up(self) -> None:
        """Tell the program the game, where it lists a command for that (module docstring)."""
        game, commands = self.game, self.program.commands
        pinned = False
        if "set_game" in commands:
            words = [f"{key}={game_parameter(value)}" for key, value in game.params().items()]
            ok, reason = self.program.ask(" ".join(["set_game", game.name] + words),
                                          self.move_seconds)
            pinned = ok
            if not ok:
                self._ask_ok(f"set_game {self._listed_name() or game.name}")
        if not pinned and "boardsize" in commands and game.height == game.width:
            self._ask_ok(f"boardsize {game.height}")

    def _listed_name(self) -> str | None:
        """The program's spelling of this game's name in its list_games, if it has one."""
        if "list_games" not in self.program.commands:
            return None
        names = self._ask_ok("list_games").split()
        return next((name for name in names if name.lower() == self.game.name.lower()), None)

    def _identity(self) -> str:
        """The program's name and version as it gives them (its command where it does not)."""
        words = [self._ask_ok(command) for command in ("name", "version")
                 if command in self.program.commands]
        return " ".join(word for word in words if word) or self.command
