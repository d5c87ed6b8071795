"""A small GTP program for the tests of alphazero.evaluate.gtp: it plays the lowest legal
move, and misbehaves on request.

    python tests/fake_gtp.py [--game connect4|othello] [--fault KIND --at N [--once PATH]]
                             [--no-set-game] [--no-pass] [--log PATH]

Connect-4 (5x5 unless set_game says otherwise) is tracked here in plain Python, so the
program starts at once. Othello uses this project's rules and behaves as GRhino does:
`set_game` takes only the name that `list_games` gives ("Othello"), and with --no-pass it
refuses `play COLOUR pass`, passes by itself, and answers `pass` to a genmove for the side
whose turn it is not. A fault (illegal, crash, slow, resign) happens at the N-th genmove
of a process; with --once PATH only while PATH does not exist, which the fault creates.
--log PATH appends every command received.
"""
import argparse
import sys
import time
from pathlib import Path

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


class Connect4Board:
    def __init__(self, rows=5, cols=5):
        self.rows, self.cols = rows, cols
        self.heights, self.to_move = [0] * cols, 0

    def play(self, seat, move):
        if seat != self.to_move:
            return "not this colour's turn"
        column = int(move) - 1 if move.isdigit() else -1
        if not 0 <= column < self.cols or self.heights[column] == self.rows:
            return "illegal move"
        self.heights[column] += 1
        self.to_move = 1 - self.to_move
        return None

    def genmove(self, seat):
        move = str(next(c for c in range(self.cols) if self.heights[c] < self.rows) + 1)
        refusal = self.play(seat, move)
        return refusal is None, refusal or move

    def illegal_move(self):
        return str(self.cols + 1)


class OthelloBoard:
    def __init__(self, passes_by_itself):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from games import make_game
        self.game = make_game("othello", rules="standard")
        self.state = self.game.new_state()
        self.passes_by_itself = passes_by_itself

    def _apply(self, action):
        self.game.play(self.state, action)
        legal = self.game.legal_list(self.state)
        if self.passes_by_itself and self.game.status(self.state) == 0 and legal == [64]:
            self.game.play(self.state, 64)

    def play(self, seat, move):
        if self.passes_by_itself and move.lower() == "pass":
            return "syntax error"
        if seat != self.game.to_move(self.state):
            return "illegal move"
        try:
            self._apply(self.game.parse_move(self.state, move))
        except ValueError:
            return "illegal move"
        return None

    def genmove(self, seat):
        if seat != self.game.to_move(self.state):
            return True, "pass"
        action = self.game.legal_list(self.state)[0]
        move = self.game.format_move(self.state, action).upper()
        self._apply(action)
        return True, move

    def illegal_move(self):
        return "A1"  # a corner: never legal in the first moves


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--fault", choices=["illegal", "crash", "slow", "resign"])
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--once")
    parser.add_argument("--no-set-game", action="store_true")
    parser.add_argument("--no-pass", action="store_true")
    parser.add_argument("--log")
    args = parser.parse_args()
    new_board = ((lambda: Connect4Board()) if args.game == "connect4"
                 else (lambda: OthelloBoard(args.no_pass)))
    board, genmoves = new_board(), 0
    commands = ["protocol_version", "name", "version", "list_commands", "clear_board", "play",
                "genmove", "quit"]
    if args.game == "othello":
        commands += ["list_games", "set_game"]
    elif not args.no_set_game:
        commands += ["set_game"]

    def answer(text="", ok=True):
        sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if args.log:
            with open(args.log, "a") as log:
                log.write(line.strip() + "\n")
        name, rest = words[0], words[1:]
        if name == "list_commands":
            answer("\n".join(commands))
        elif name == "name":
            answer("Fake")
        elif name == "version":
            answer("1.0")
        elif name == "protocol_version":
            answer("2")
        elif name == "quit":
            answer()
            return
        elif name == "list_games":
            answer("Othello")
        elif name == "set_game" and name in commands:
            if args.game == "othello":
                answer("" if rest == ["Othello"] else "unsupported game", rest == ["Othello"])
            else:
                sizes = dict(word.split("=", 1) for word in rest[1:])
                board = Connect4Board(int(sizes["rows"]), int(sizes["cols"]))
                answer()
        elif name == "clear_board":
            board = (Connect4Board(board.rows, board.cols) if args.game == "connect4"
                     else new_board())
            answer()
        elif name == "play" and len(rest) == 2 and rest[0].lower() in COLOURS:
            refusal = board.play(COLOURS[rest[0].lower()], rest[1])
            answer(refusal or "", refusal is None)
        elif name == "genmove" and len(rest) == 1 and rest[0].lower() in COLOURS:
            genmoves += 1
            fault = args.fault if genmoves == args.at else None
            if fault and args.once:
                if Path(args.once).exists():
                    fault = None
                else:
                    Path(args.once).touch()
            if fault == "crash":
                sys.stderr.write("fake program: boom\n")
                sys.exit(3)
            if fault == "slow":
                time.sleep(30)
            if fault == "illegal":
                answer(board.illegal_move())
            elif fault == "resign":
                answer("resign")
            else:
                ok, text = board.genmove(COLOURS[rest[0].lower()])
                answer(text, ok)
        else:
            answer("unknown command", False)


if __name__ == "__main__":
    main()
