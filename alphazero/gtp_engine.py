"""A GTP v2 engine on stdin/stdout: `python -m alphazero.engine game=othello checkpoint=PATH`.

Every command is answered `=[id] result` or `?[id] reason`, then a blank line; empty lines
and comments get no answer, as GTP says. Bad input of any kind is refused and leaves the
game unchanged; the engine never stops on it.

Black is the first player in every game. Moves are written as the game writes them: a
Connect-4 column from 1, a Connect6 point such as F5 (row 1 at the bottom, no I), an Othello
square such as d3, or pass. A Connect6 turn is two stones, so two play or genmove commands of
the same colour. Besides the standard commands:

  set_game [NAME] key=value ...   change the game's parameters (or the game: a registered
                                  game from its defaults, or a config such as connect4_classic),
                                  e.g. `set_game rows=9 cols=10 forbidden=[4,4]`; clears the board
  boardsize N                     Connect6 sizes 6-19; Othello 8 only; Connect-4 uses set_game
  final_score                     once over, Othello: the disc difference (B+n, W+n or 0);
                                  other games: B+1, W+1 or 0; refused before the end (Othello's
                                  refusal says the disc difference so far)
  komi X                          accepted (GTP requires it) and ignored: no game here has komi

clear_board on a game whose board is drawn per game (Connect-4 ranges) draws the next board
from a generator seeded with `seed`, so a session is reproducible.
"""
from __future__ import annotations

import copy

import numpy as np
from omegaconf import DictConfig, open_dict

from alphazero.agent.build import make_agent
from alphazero.config.command import command_config
from alphazero.config.command_line import unknown_setting
from alphazero.config.settings import build_game, validate
from alphazero.engine_protocol import COMMAND_NAMES, GAME_FREE_ANSWERS, answer, parse_line
from alphazero.config.presets import advisors_of, load_presets, named_game, playing_budget
from alphazero.config.threads import use_search_threads
from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, make_game
from games.core.cli import parse_overrides

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
COLOUR_NAMES = ("black", "white")
WINNER_SCORES = {FIRST_WON: "B+1", SECOND_WON: "W+1", DRAW: "0"}


class Refusal(ValueError):
    """A command the engine cannot carry out; the message is the GTP error text."""


def parse_colour(word: str) -> int:
    seat = COLOURS.get(word.lower())
    if seat is None:
        raise Refusal(f"'{word}' is not a colour; use b, black, w or white.")
    return seat


def score_text(black_minus_white: int) -> str:
    if black_minus_white == 0:
        return "0"
    return f"B+{black_minus_white}" if black_minus_white > 0 else f"W+{-black_minus_white}"


class GtpEngine:
    """One game and one player behind the GTP commands; `handle` answers one input line."""

    def __init__(self, cfg: DictConfig):
        self.cfg = cfg
        # Without mcts.simulations on the command line, each game set by set_game is searched
        # with its own playing budget (alphazero.config.presets), as the starting game is.
        self.follows_budget = cfg.mcts.simulations == cfg.game.play_simulations
        self.presets = None  # composed on the first set_game: about a second
        self.board_rng = np.random.default_rng(cfg.seed)
        self.stopped = False
        handlers = {
            **{name: (lambda args, text=text: text()) for name, text in GAME_FREE_ANSWERS.items()},
            "known_command": self.known_command,
            "quit": self.quit,
            "boardsize": self.boardsize,
            "komi": self.komi,
            "set_game": self.set_game,
            "clear_board": self.clear_board,
            "play": self.play,
            "genmove": self.genmove,
            "undo": self.undo,
            "showboard": lambda args: "\n" + self.game.render(self.state),
            "final_score": self.final_score,
        }
        assert set(handlers) == set(COMMAND_NAMES)
        self.commands = {name: handlers[name] for name in COMMAND_NAMES}  # list_commands' order
        self.switch_game(build_game(cfg))

    # --- the protocol -----------------------------------------------------------------
    def handle(self, line: str) -> str | None:
        """The full answer to one input line (ending in a blank line), or None for no answer."""
        parsed = parse_line(line)
        if parsed is None:
            return None
        number, words = parsed
        if not words:
            return answer("?", number, "missing command after the id")
        name, args = words[0], words[1:]
        try:
            if name not in self.commands:
                raise Refusal(f"unknown command '{name[:40]}'; list_commands shows them.")
            return answer("=", number, self.commands[name](args))
        except ValueError as error:  # Refusal, GameError, CheckpointError, ConfigError
            return answer("?", number, " ".join(str(error).split()))
        except Exception as error:  # last resort: a bug must not end the session
            return answer("?", number, f"internal error: {type(error).__name__}: "
                                       + " ".join(str(error).split()))

    def known_command(self, args) -> str:
        name = self.one_argument(args, "known_command COMMAND")
        return "true" if name in self.commands else "false"

    def quit(self, args) -> str:
        self.stopped = True
        return ""

    @staticmethod
    def one_argument(args, usage: str) -> str:
        if len(args) != 1:
            raise Refusal(f"expected one argument: {usage}.")
        return args[0]

    # --- the game and the board -------------------------------------------------------
    def switch_game(self, game) -> None:
        """Play `game` from now on, with a player built for it; unchanged if that fails. A
        game set after the first plays with the advisors its own config gives the agent, none
        where no config covers its boards (and none at all with search_alone=true, which
        holds for the whole session)."""
        cfg = self.cfg
        if hasattr(self, "game"):
            self.presets = self.presets or load_presets()
            cfg = copy.deepcopy(cfg)
            with open_dict(cfg):
                cfg.game.advisors = advisors_of(game, self.presets)
                if self.follows_budget:
                    cfg.mcts.simulations = (playing_budget(game, self.presets)
                                            or self.cfg.game.play_simulations)
        player = make_agent(game, cfg)
        self.game, self.player = game, player
        self.clear_board([])

    def set_game(self, args) -> str:
        if not args:
            raise Refusal("set_game needs key=value parameters (or a game name first), "
                          "e.g. set_game rows=9 cols=10 forbidden=[4,4].")
        if "=" not in args[0]:  # a new game, named as game=NAME names it
            self.switch_game(named_game(args[0], **parse_overrides(args[1:])))
            return ""
        params, changes = self.game.params(), parse_overrides(args)
        if {"rows", "cols"} & changes.keys():
            params.pop("size", None)  # a rectangle replaces a square board's size
        self.switch_game(make_game(self.game.name, **{**params, **changes}))
        return ""

    def boardsize(self, args) -> str:
        text = self.one_argument(args, "boardsize N")
        if not (text.isascii() and text.isdigit()):
            raise Refusal(f"boardsize needs a whole number, not '{text}'.")
        size, params = int(text), self.game.params()
        if "size" in params:
            self.switch_game(make_game(self.game.name, **{**params, "size": size}))
        elif "rows" in params or "cols" in params:
            raise Refusal(f"{self.game.name} boards have rows and columns: use set_game rows=R cols=C "
                          "(and forbidden=[row,col], null or random).")
        elif size == self.game.height == self.game.width:
            self.clear_board([])
        else:
            raise Refusal(f"{self.game.name} is played on a {self.game.height}x{self.game.width} "
                          "board only.")
        return ""

    def komi(self, args) -> str:
        text = self.one_argument(args, "komi X")
        try:
            float(text)
        except ValueError:
            raise Refusal(f"komi needs a number, not '{text}'.") from None
        return ""

    def clear_board(self, args) -> str:
        self.state = self.game.new_state(self.board_rng)
        self.history = []  # states before each move, for undo
        return ""

    def undo(self, args) -> str:
        if not self.history:
            raise Refusal("there is no move to undo.")
        self.state = self.history.pop()
        return ""

    # --- moves --------------------------------------------------------------------------
    def colour_to_play(self, args, usage: str, count: int) -> int:
        """The seat named in args[0], checked against the game: over, or the other side's turn."""
        if len(args) != count:
            raise Refusal(f"expected {usage}.")
        seat = parse_colour(args[0])
        if self.game.status(self.state) != ONGOING:
            raise Refusal("game is over.")
        to_move = self.game.to_move(self.state)
        if seat != to_move:
            raise Refusal(f"it is {COLOUR_NAMES[to_move]}'s turn, not {COLOUR_NAMES[seat]}'s.")
        return seat

    def apply(self, action: int) -> None:
        self.history.append(self.state.copy())
        self.game.play(self.state, action)

    def play(self, args) -> str:
        self.colour_to_play(args, "play COLOUR MOVE", 2)
        self.apply(self.game.parse_move(self.state, args[1]))
        return ""

    def genmove(self, args) -> str:
        self.colour_to_play(args, "genmove COLOUR", 1)
        action = int(self.player.best_actions(self.state[None])[0])
        move = self.game.format_move(self.state, action)
        self.apply(action)
        return move

    def final_score(self, args) -> str:
        """A finished game's score: its disc difference where the game counts one (Othello),
        else who won. Before the end it refuses, saying the disc difference so far if any:
        a mid-game count is no final score."""
        score = self.game.score(self.state)  # None: the game counts no score
        status = self.game.status(self.state)
        if status == ONGOING:
            if score is None:
                raise Refusal("the game is not over, and it has no score before its end.")
            raise Refusal(f"the game is not over; the disc difference so far is "
                          f"{score_text(score)}.")
        return score_text(score) if score is not None else WINNER_SCORES[status]


def start_engine(argv: list[str]) -> GtpEngine:
    """The engine `python -m alphazero.engine ARGV` plays with; a user's mistake raises a
    ValueError (ConfigError, GameError, CheckpointError) with one sentence."""
    unknown_setting("engine", "engine", argv)
    cfg = command_config("engine", argv)
    validate(cfg)
    use_search_threads(cfg.threads)
    return GtpEngine(cfg)
