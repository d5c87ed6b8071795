"""Play against the agent in a terminal: `python -m alphazero.play game=connect4 checkpoint=PATH`.

The board is shown before each of the human's moves, typed in the game's own notation (a
column number, F5, d3 or pass). A refused move leaves the game as it was and asks again. A
Connect6 turn is two stones, so two prompts. `quit` or the end of input stops the game.
Options: player=az|pure (pure.playouts=N needs no checkpoint), human=first|second, seed=N
(which board a game with boards drawn per game gets). Errors: one line and exit code 2.
"""
from __future__ import annotations

import sys
from typing import Callable, TextIO

import numpy as np

from alphazero.config.command import command_config, run_or_exit
from alphazero.config.command_line import check_command_line, text_input
from alphazero.config.settings import SEATS, build_game, validate
from alphazero.agent.build import build_agent
from alphazero.config.threads import use_search_threads
from games import DRAW, FIRST_WON, ONGOING, GameError

SEAT_COLOURS = ("black", "white")
PASS_WORD = "pass"  # the notation of a forced pass, in the games that have one


def must_pass(game, state) -> bool:
    legal = game.legal_list(state)
    return len(legal) == 1 and game.format_move(state, legal[0]) == PASS_WORD


def read_human_move(game, state, stdin: TextIO, say: Callable) -> int | None:
    """The human's next legal action, asking until one parses; None on `quit` or end of input."""
    if must_pass(game, state):
        say(f"You have no legal move and must pass: type {PASS_WORD}.")
    while True:
        say("your move> ", end="")
        line = stdin.readline()
        if not line:
            say()  # end the prompt's line
            return None
        text = line.strip()
        if text.lower() == "quit":
            return None
        if not text:
            continue
        try:
            return game.parse_move(state, text)
        except GameError as error:
            say(f"refused: {error}")


def agent_move(game, agent, state, say: Callable) -> int:
    action = int(agent.best_actions(state[None])[0])
    value = float(agent.last_values[0])
    say(f"agent plays {game.format_move(state, action)} (value {value:+.2f} for the agent)")
    return action


def result_sentence(status: int, seat: int) -> str:
    if status == DRAW:
        return "Result: draw."
    winner = 0 if status == FIRST_WON else 1
    return "Result: you win." if winner == seat else "Result: the agent wins."


def play_match(game, agent, state, seat: int, stdin: TextIO, stdout: TextIO) -> int | None:
    """Play `state` to the end, the human in `seat` (0 first) typing on `stdin`.

    Returns the final status, or None when the human stops early."""
    def say(*parts, end="\n"):
        print(*parts, end=end, file=stdout, flush=True)

    say(f"You play {SEAT_COLOURS[seat]} ({SEATS[seat]}). Type moves in the board's notation, or quit.")
    while game.status(state) == ONGOING:
        if game.to_move(state) == seat:
            say(game.render(state))
            action = read_human_move(game, state, stdin, say)
            if action is None:
                say("Game abandoned.")
                return None
        else:
            action = agent_move(game, agent, state, say)
        game.play(state, action)
    status = game.status(state)
    say(game.render(state))
    say(result_sentence(status, seat))
    return status


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
