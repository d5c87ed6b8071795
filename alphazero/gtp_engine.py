"""A GTP v2 engine on stdin/stdout: `python -m alphazero.engine game=othello checkpoint=PATH`.

Every command is answered `=[id] result` or `?[id] reason`, then a blank line; empty lines
and comments get no answer, as GTP says. Bad input of any kind is refused and leaves the
game unchanged; the engine never stops on it.

`b` (black) is the first player in every game, `w` the second; the game's own colours
(Connect-4's red and yellow) are accepted too, and refusals name them. Moves are written as
the game writes them: a Connect-4 column from 1, a Connect6 point such as F5 (row 1 at the
bottom, no I), an Othello square such as d3, or pass. A Connect6 turn is two stones, so two play or genmove commands of
the same colour. Besides the standard commands:

  set_game [NAME] key=value ...   change the game's parameters (or the game: a registered
                                  game from its defaults, or a config such as connect4_classic),
                                  e.g. `set_game rows=9 cols=10 forbidden=[4,4]`; clears the board
  boardsize N                     Connect6 sizes 6-19, Gomoku 5-19; Othello 8 only; Connect-4 uses set_game
  final_score                     once over, Othello: the disc difference (B+n, W+n or 0);
                                  other games: B+1, W+1 or 0; refused before the end (Othello's
                                  refusal says the disc difference so far)
  komi X                          accepted (GTP requires it) and ignored: no game here has komi

clear_board on a game whose board is drawn per game (Connect-4 ranges) draws the next board
from a generator seeded with `seed`, so a session is reproducible.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from omegaconf import DictConfig

from alphazero.agent.build import board_words, build, shipped_boards, trained_board_words
from alphazero.agent.spec import agent_spec
from alphazero.config.command import command_config
from alphazero.config.command_line import unknown_setting
from alphazero.config.settings import build_game, validate
from alphazero.engine_protocol import COMMAND_NAMES, GAME_FREE_ANSWERS, answer, parse_line
from alphazero.config.presets import advisors_of, load_presets, named_game, playing_budget
from alphazero.config.threads import use_search_threads
from alphazero.nn.checkpoint import CheckpointError
from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, make_game
from games.core.board_text import legend
from games.core.cli import parse_overrides

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
GTP_COLOURS = ("b", "w")
LARGEST_GTP_BOARD = 25  # boardsize's limit in GTP 2
WINNER_SCORES = {FIRST_WON: "B+1", SECOND_WON: "W+1", DRAW: "0"}


class Refusal(ValueError):
    """A command the engine cannot carry out; the message is the GTP error text."""


def parse_colour(word: str, side_names: tuple[str, str]) -> int:
    """A seat from GTP's b/black/w/white or the game's own colours (Red, Yellow)."""
    seat = {**COLOURS, **{name.lower(): i for i, name in enumerate(side_names)}}.get(word.lower())
    if seat is None:
        raise Refusal(f"'{word}' is not a colour; use b or w ({side_names[0]} or {side_names[1]}).")
    return seat


def score_text(black_minus_white: int) -> str:
    if black_minus_white == 0:
        return "0"
    return f"B+{black_minus_white}" if black_minus_white > 0 else f"W+{-black_minus_white}"


class GtpEngine:
    """One game and one player behind the GTP commands; `handle` answers one input line."""

    def __init__(self, cfg: DictConfig, follows_budget: bool = True):
        self.cfg = cfg
        self.spec = agent_spec(cfg)
        # Without mcts.simulations on the command line, each game set by set_game is searched
        # with its own playing budget (alphazero.config.presets), as the starting game is.
        self.follows_budget = follows_budget
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
            "showboard": self.showboard,
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
        name = self.one_argument(args, "known_command", "known_command genmove")
        return "true" if name in self.commands else "false"

    def quit(self, args) -> str:
        self.stopped = True
        return ""

    @staticmethod
    def one_argument(args, command: str, example: str) -> str:
        if len(args) != 1:
            raise Refusal(f"{command} takes one argument, e.g. {example}.")
        return args[0]

    # --- the game and the board -------------------------------------------------------
    def switch_game(self, game) -> None:
        """Play `game` from now on, with a player built for it; unchanged if that fails. A
        game set after the first plays with the advisors its own config gives the agent, none
        where no config covers its boards (and none at all with search_alone=true, which
        holds for the whole session)."""
        spec = self.spec
        if hasattr(self, "game"):
            self.presets = self.presets or load_presets()
            if not self.cfg.search_alone:
                spec = spec.advised(advisors_of(game, self.presets))
            if self.follows_budget:
                spec = replace(spec, simulations=playing_budget(game, self.presets)
                               or self.cfg.game.play_simulations)
            try:
                player = build(game, spec)
            except CheckpointError:  # its message names parameters the user may never have typed
                raise self.no_network_for(game) from None
        else:
            player = build(game, spec)
        self.game, self.player = game, player
        self.clear_board([])

    def no_network_for(self, game) -> Refusal:
        """Why this engine's network cannot play `game`, naming games and boards."""
        wanted = board_words(game)
        if self.cfg.checkpoint:
            return Refusal(f"the network in {self.cfg.checkpoint} plays "
                           f"{trained_board_words(self.cfg.checkpoint)}, not {wanted}.")
        return Refusal(f"no shipped network plays {wanted} (they play "
                       f"{shipped_boards(game.name)}); start the engine with "
                       "checkpoint=PATH for a network trained on it, or with player=pure.")

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
        text = self.one_argument(args, "boardsize", "boardsize 15")
        if not (text.isascii() and text.isdigit()):
            raise Refusal(f"boardsize needs a whole number, not '{text}'.")
        size, params, name = int(text), self.game.params(), self.game.presentation().name
        if "size" in params:
            sizes = [n for n in range(1, LARGEST_GTP_BOARD + 1) if self.square_board(params, n)]
            if size not in sizes:
                raise Refusal(f"{name} is played here on boards from {sizes[0]}×{sizes[0]} to "
                              f"{sizes[-1]}×{sizes[-1]}, not {size}×{size}.")
            self.switch_game(self.square_board(params, size))
        elif "rows" in params or "cols" in params:
            raise Refusal(f"{name} boards have rows and columns of their own: set them with "
                          "set_game rows=R cols=C.")
        elif size == self.game.height == self.game.width:
            self.clear_board([])
        else:
            raise Refusal(f"{name} is played on {self.game.height}×{self.game.width} only, "
                          f"not {size}×{size}.")
        return ""

    def square_board(self, params: dict, size: int):
        """This game on a size × size board, or None where it has no such board."""
        try:
            return make_game(self.game.name, **{**params, "size": size})
        except GameError:
            return None

    def showboard(self, args) -> str:
        text = self.game.render(self.state)
        return f"\n{text}\n{legend(self.game.presentation(), text, last_turn=False, line=False)}"

    def komi(self, args) -> str:
        text = self.one_argument(args, "komi", "komi 6.5")
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
            raise Refusal(f"{usage}.")
        names = self.game.presentation().side_names
        seat = parse_colour(args[0], names)
        status = self.game.status(self.state)
        if status != ONGOING:
            result = "a draw" if status == DRAW else f"{names[status - FIRST_WON]} won"
            raise Refusal(f"the game is over ({result}); clear_board starts a new one.")
        to_move = self.game.to_move(self.state)
        if seat != to_move:
            raise Refusal(f"it is {names[to_move]}'s turn ({GTP_COLOURS[to_move]}), "
                          f"not {names[seat]}'s.")
        return seat

    def example_move(self) -> str:
        """A move of this game in its notation (one of the start's), for a usage line."""
        start = self.game.new_state(np.random.default_rng(0))
        legal = self.game.legal_list(start)
        return self.game.format_move(start, legal[len(legal) // 2])

    def apply(self, action: int) -> None:
        self.history.append(self.state.copy())
        self.game.play(self.state, action)

    def play(self, args) -> str:
        self.colour_to_play(args, f"play takes a colour and a move, e.g. play b {self.example_move()}", 2)
        self.apply(self.game.parse_move(self.state, args[1]))
        return ""

    def genmove(self, args) -> str:
        self.colour_to_play(args, "genmove takes a colour, e.g. genmove b", 1)
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
    given = any(word.lstrip("+").startswith("mcts.simulations=") for word in argv)
    return GtpEngine(cfg, follows_budget=not given)
