"""The GTP engine's command: `python -m alphazero.engine game=othello [checkpoint=PATH]`.

It answers `protocol_version`, `name`, `version`, `list_commands`, `known_command` and `quit`
at once, while the engine starts in a thread (composing its config, loading the network,
compiling the game's kernels on a first start: seconds): a GUI or match tool that waits a
few seconds for its first answers never gives up. Every other command waits for the engine
(alphazero.gtp_engine, which documents the commands). A setting or checkpoint the engine
cannot start with is one sentence on stderr and exit code 2, as soon as it is found.
"""
from __future__ import annotations

import os
import queue
import sys
import threading

from alphazero.config.command_line import HELP_FLAGS, check_command_line, text_input
from alphazero.engine_protocol import COMMAND_NAMES, GAME_FREE_ANSWERS, answer, parse_line


class StartingEngine:
    """Answers what needs no game while the engine starts; then hands every line to it."""

    def __init__(self, argv: list[str]):
        self.engine = None
        self.failure: BaseException | None = None
        self.stopped = False
        self.starting = threading.Thread(target=self._start, args=(argv,), daemon=True)
        self.starting.start()

    def _start(self, argv: list[str]) -> None:
        try:
            from alphazero.gtp_engine import start_engine
            self.engine = start_engine(argv)
        except BaseException as error:  # the main thread reports it
            self.failure = error

    def check_started(self, wait: bool) -> None:
        """Exit with the reason if the engine could not start (waiting for it with `wait`):
        a user's mistake in one sentence and exit code 2, a bug with its traceback."""
        if wait:
            self.starting.join()
        if isinstance(self.failure, ValueError):  # ConfigError, GameError, CheckpointError
            print(f"error: {self.failure}", file=sys.stderr)
            sys.exit(2)
        if self.failure is not None:
            raise self.failure

    def handle(self, line: str) -> str | None:
        """The full answer to one input line, or None for no answer."""
        if self.engine is None:
            parsed = parse_line(line)
            if parsed is None:
                return None
            number, words = parsed
            if len(words) == 1 and words[0] in GAME_FREE_ANSWERS:
                return answer("=", number, GAME_FREE_ANSWERS[words[0]]())
            if len(words) == 2 and words[0] == "known_command":
                return answer("=", number, "true" if words[1] in COMMAND_NAMES else "false")
            if words == ["quit"]:
                self.stopped = True
                return answer("=", number, "")
            self.check_started(wait=True)
        response = self.engine.handle(line)
        self.stopped = self.engine.stopped
        return response


def read_lines(lines: queue.SimpleQueue) -> None:
    """stdin's lines into `lines`, then None (at its end, or if it cannot be read)."""
    try:
        for line in text_input():
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(None)


def serve(engine: StartingEngine, lines: queue.SimpleQueue, stdout) -> None:
    """Answer the lines until quit or their end (None), checking meanwhile that the engine
    started."""
    while not engine.stopped:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            engine.check_started(wait=False)
            continue
        if line is None:
            engine.check_started(wait=True)
            return
        response = engine.handle(line)
        if response is not None:
            stdout.write(response)
            stdout.flush()


def main(argv: list[str]) -> None:
    if any(word in HELP_FLAGS for word in argv):
        check_command_line("engine", "engine", argv)
    # stdin is read in a thread, so that a failed start ends the engine at once even while
    # no command comes
    lines = queue.SimpleQueue()
    reader = threading.Thread(target=read_lines, args=(lines,), daemon=True)
    reader.start()
    code = 0
    try:
        serve(StartingEngine(argv), lines, sys.stdout)
    except KeyboardInterrupt:
        code = 130
    except SystemExit as stopped:
        code = stopped.code
    if reader.is_alive():  # blocked reading stdin, which a normal exit would wait on and abort
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
