"""Play against the agent in a terminal: `python -m alphazero.play game=connect4 checkpoint=PATH`.

The board is shown before each of the human's moves, with the last turn in parentheses, the
winning line in brackets at the end, and a legend of its symbols in the game's colours (the
game's presentation, as on the web board). Moves are typed in the game's own notation (a
column number, F5, d3 or pass); a Connect6 turn's two stones go on one line (`E6 F6`) or one a
prompt. `help` lists the commands, `hint` shows the agent's move for the human (not played),
`undo` takes back the human's last turn and the agent's reply, `quit` or the end of input
stops the game. A refused line leaves the game as it was and asks again.
Options: player=az|pure (pure.playouts=N needs no checkpoint), human=first|second, seed=N
(which board a game with boards drawn per game gets). Errors: one line and exit code 2.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, TextIO

import numpy as np

from alphazero.config.command import command_config, run_or_exit
from alphazero.config.command_line import check_command_line, text_input
from alphazero.config.settings import SEATS, build_game, validate
from alphazero.agent.build import build_agent
from alphazero.config.threads import use_search_threads
from games import DRAW, FIRST_WON, ONGOING, GameError
from games.core.board_text import flat_board, legend, marked_board, move_change
from games.core.winning_line import winning_line

COMMANDS = (("hint", "the agent's move for you, shown and not played"),
            ("undo", "take back your last move and the agent's reply"),
            ("help", "this list"),
            ("quit", "end the game"))


def must_pass(game, state) -> bool:
    legal = game.legal_list(state)
    return game.pass_action is not None and legal == [game.pass_action]


@dataclass
class Move:
    before: np.ndarray      # the state it was played in
    action: int
    mover: int
    filled: int | None      # the flat board's cell it filled (None for a pass)
    turned: bool            # whether it turned pieces (Othello): no line wins such a game


class TerminalGame:
    """One game between the human in `seat` (0 first), typing on `stdin`, and the agent."""

    def __init__(self, game, agent, state: np.ndarray, seat: int, stdin: TextIO, stdout: TextIO):
        self.game, self.agent, self.state, self.seat = game, agent, state, seat
        self.stdin, self.stdout = stdin, stdout
        self.presentation = game.presentation()
        self.sides = self.presentation.side_names
        self.moves: list[Move] = []
        self.turn_starts: list[int] = []  # len(moves) as each of the human's turns began

    def say(self, *parts, end="\n") -> None:
        print(*parts, end=end, file=self.stdout, flush=True)

    # --- the board ------------------------------------------------------------------------
    def play(self, action: int) -> None:
        before_state = self.state.copy()
        before = flat_board(self.game.render(self.state))[0]
        mover = self.game.to_move(self.state)
        self.game.play(self.state, action)
        filled, turned = move_change(before, flat_board(self.game.render(self.state))[0])
        self.moves.append(Move(before_state, action, mover, filled, bool(turned)))

    def last_turn(self) -> list[int]:
        """The cells the last turn filled (both stones of a Connect6 turn)."""
        cells = []
        for move in reversed(self.moves):
            if move.mover != self.moves[-1].mover:
                break
            cells += [move.filled] if move.filled is not None else []
        return cells

    def winning_cells(self, text: str) -> list[int]:
        """The line that won, where a line won (not a count of discs, as in Othello)."""
        won = self.game.status(self.state) not in (ONGOING, DRAW)
        if not won or any(move.turned for move in self.moves) or not self.last_turn():
            return []
        board, cols = flat_board(text)
        if not board:  # a board drawn otherwise than in cell marks: no line to mark
            return []
        return winning_line(board, cols, self.last_turn(), self.game.exact_winning_line)

    def show_board(self) -> None:
        text = self.game.render(self.state)
        last, line = (self.last_turn() if self.moves else []), self.winning_cells(text)
        self.say(marked_board(text, last, line))
        self.say(legend(self.presentation, text, bool(last), bool(line)))

    # --- the human's turn -----------------------------------------------------------------
    def humans_turn(self) -> bool:
        return self.game.status(self.state) == ONGOING and self.game.to_move(self.state) == self.seat

    def turn_moves(self, choose: Callable[[np.ndarray], int]) -> list[str]:
        """The moves, in notation, that complete the human's turn from here, each chosen by
        `choose(state)` on a copy (Connect6: two stones)."""
        trial, words = self.state.copy(), []
        while self.game.status(trial) == ONGOING and self.game.to_move(trial) == self.seat:
            action = int(choose(trial))
            words.append(self.game.format_move(trial, action))
            self.game.play(trial, action)
        return words

    def help(self) -> None:
        legal = self.game.legal_list
        example = " ".join(self.turn_moves(lambda trial: legal(trial)[len(legal(trial)) // 2]))
        self.say(f"Type your move as the board labels it, e.g. {example}"
                 + (" (a whole turn on one line, or a stone a prompt)." if " " in example else "."))
        for name, words in COMMANDS:
            self.say(f"  {name:<5} {words}")

    def hint(self) -> None:
        moves = self.turn_moves(lambda trial: self.agent.best_actions(trial[None])[0])
        self.say(f"hint: {' '.join(moves)} (the agent's search for {self.sides[self.seat]}; "
                 "not played)")

    def undo(self) -> None:
        """Back to the start of this turn if it is under way, else of the human's previous one."""
        if len(self.moves) == self.turn_starts[-1] and len(self.turn_starts) > 1:
            self.turn_starts.pop()
        start = self.turn_starts[-1]
        if start == len(self.moves):
            self.say("Nothing to undo: you have not moved yet.")
            return
        taken = ", ".join(f"{self.game.format_move(move.before, move.action)} ({self.sides[move.mover]})"
                          for move in self.moves[start:])
        self.state[:] = self.moves[start].before
        del self.moves[start:]
        self.say(f"Took back {taken}.")
        self.show_board()

    def play_line(self, text: str) -> str | None:
        """Play the human's moves in `text` (a whole turn or a part of it); the reason if
        refused, with nothing played."""
        trial, actions = self.state.copy(), []
        words = text.split()
        for count, word in enumerate(words):
            if not (self.game.status(trial) == ONGOING and self.game.to_move(trial) == self.seat):
                return (f"your turn ends after {' '.join(words[:count])}; "
                        "type one turn at a time.")
            try:
                actions.append(self.game.parse_move(trial, word))
            except GameError as error:
                return str(error)
            self.game.play(trial, actions[-1])
        for action in actions:
            self.play(action)
        return None

    def human_turn(self) -> bool:
        """Read lines until the human's turn is played; False on `quit` or end of input."""
        self.turn_starts.append(len(self.moves))
        self.show_board()
        if must_pass(self.game, self.state):
            self.say("You have no legal move and must pass: type "
                     f"{self.game.format_move(self.state, self.game.pass_action)}.")
        while self.humans_turn():
            self.say("your move> ", end="")
            line = self.stdin.readline()
            if not line:
                self.say()  # end the prompt's line
                return False
            text = line.strip()
            command = text.lower()
            if command == "quit":
                return False
            if command in ("help", "hint", "undo"):
                getattr(self, command)()
            elif text:
                played = len(self.moves)
                refusal = self.play_line(text)
                if refusal:
                    self.say(f"refused: {refusal}")
                elif self.humans_turn() and len(self.moves) > played:
                    self.show_board()  # the turn goes on: its next stone
        return True

    # --- the game -------------------------------------------------------------------------
    def agent_move(self) -> None:
        action = int(self.agent.best_actions(self.state[None])[0])
        value = float(self.agent.last_values[0])
        self.say(f"agent plays {self.game.format_move(self.state, action)} "
                 f"(value {value:+.2f} for the agent)")
        self.play(action)

    def result_sentence(self, status: int) -> str:
        if status == DRAW:
            return "Result: draw."
        winner = 0 if status == FIRST_WON else 1
        return f"Result: {self.sides[winner]} wins: {'you' if winner == self.seat else 'the agent'}."

    def run(self) -> int | None:
        """Play to the end; the final status, or None when the human stops early."""
        self.say(f"You play {self.presentation.side(self.seat)}, {SEATS[self.seat]}, against the "
                 f"agent's {self.presentation.side(1 - self.seat)}. Type help for the commands.")
        while self.game.status(self.state) == ONGOING:
            if self.game.to_move(self.state) != self.seat:
                self.agent_move()
            elif not self.human_turn():
                self.say("Game abandoned.")
                return None
        self.show_board()
        status = self.game.status(self.state)
        self.say(self.result_sentence(status))
        return status


def play_match(game, agent, state, seat: int, stdin: TextIO, stdout: TextIO) -> int | None:
    """Play `state` to the end, the human in `seat` (0 first) typing on `stdin`.

    Returns the final status, or None when the human stops early."""
    return TerminalGame(game, agent, state, seat, stdin, stdout).run()


def main(argv: list[str]) -> None:
    check_command_line("play", "play", argv)

    def session():
        cfg = command_config("play", argv)
        validate(cfg)
        use_search_threads(cfg.threads)
        game = build_game(cfg)
        seat = SEATS.index(cfg.human)  # checked by validate
        agent = build_agent(game, cfg)
        state = game.new_state(np.random.default_rng(cfg.seed))
        play_match(game, agent, state, seat, text_input(), sys.stdout)

    run_or_exit(session)


if __name__ == "__main__":
    main(sys.argv[1:])
