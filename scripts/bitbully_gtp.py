"""A perfect classic Connect-4 player that speaks GTP, to measure a network against with
`opponent=gtp:...`: BitBully (PyPI `bitbully`, a C++ solver with opening books to 12 plies)
behind the commands that alphazero.evaluate.gtp sends.

    pip install bitbully
    python -m alphazero.evaluate game=connect4_classic "opponent='gtp:python scripts/bitbully_gtp.py'"

Columns are numbered from 1 as this project's engine writes them; black moves first. BitBully
plays the classic 6x7 board only, so `set_game` takes connect4 rows=6 cols=7 forbidden=null
and nothing else. Without its opening book (`--no-book`) a move early in the game can take
minutes.
"""
import sys

import bitbully

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
CLASSIC = ["connect4", "rows=6", "cols=7", "forbidden=null"]
COMMANDS = ["protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "set_game", "clear_board", "play", "genmove"]


class Refusal(Exception):
    pass


class Player:
    def __init__(self, book: bool):
        self.agent = bitbully.BitBully() if book else bitbully.BitBully(opening_book=None)
        self.board, self.plies = bitbully.Board(), 0

    def check_turn(self, colour: str) -> None:
        if COLOURS.get(colour.lower()) != self.plies % 2:
            raise Refusal(f"it is not {colour}'s turn")
        if self.board.is_game_over():
            raise Refusal("the game is over")

    def answer(self, name: str, args: list[str]) -> str:
        if name == "protocol_version":
            return "2"
        if name == "name":
            return "BitBully"
        if name == "version":
            return getattr(bitbully, "__version__", "")
        if name == "known_command":
            return str(args[:1] and args[0] in COMMANDS).lower()
        if name == "list_commands":
            return "\n".join(COMMANDS)
        if name == "set_game":
            if args != CLASSIC:
                raise Refusal("BitBully plays classic Connect-4 only: " + " ".join(CLASSIC))
            return self.answer("clear_board", [])
        if name == "clear_board":
            self.board, self.plies = bitbully.Board(), 0
            return ""
        if name == "play" and len(args) == 2:
            self.check_turn(args[0])
            column = int(args[1]) - 1 if args[1].isdigit() else -1
            if not (0 <= column < 7 and self.board.play(column)):
                raise Refusal("illegal move")
            self.plies += 1
            return ""
        if name == "genmove" and len(args) == 1:
            self.check_turn(args[0])
            column = int(self.agent.best_move(self.board))
            self.board.play(column)
            self.plies += 1
            return str(column + 1)
        raise Refusal("unknown command")


def main() -> None:
    player = Player(book="--no-book" not in sys.argv[1:])
    for line in sys.stdin:
        words = line.split("#", 1)[0].split()
        number = words.pop(0) if words and words[0].isdigit() else ""
        if not words:
            continue
        try:
            reply = "=" + number + " " + player.answer(words[0], words[1:])
        except Refusal as refusal:
            reply = "?" + number + " " + str(refusal)
        sys.stdout.write(reply.rstrip() + "\n\n")
        sys.stdout.flush()
        if words[0] == "quit":
            return


if __name__ == "__main__":
    main()
