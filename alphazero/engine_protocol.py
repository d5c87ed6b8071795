"""The parts of the GTP protocol that need no game: reading a line, writing an answer, the
engine's name and commands. `python -m alphazero.engine` answers with these alone while the
engine starts (alphazero.gtp_engine): they import nothing heavy.
"""
from __future__ import annotations

import re
from importlib import metadata

ENGINE_NAME = "alphazero-boardgames"
# every command the engine knows, in list_commands' order (alphazero.gtp_engine.GtpEngine)
COMMAND_NAMES = ("protocol_version", "name", "version", "known_command", "list_commands", "quit",
                 "boardsize", "komi", "set_game", "clear_board", "play", "genmove", "undo",
                 "showboard", "final_score")
# GTP's input rules: control characters other than tab and newline are dropped.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def engine_version() -> str:
    try:
        return metadata.version(ENGINE_NAME)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "development"


def clean_line(line: str) -> str:
    """A GTP input line with comments, control characters and tabs taken out."""
    return CONTROL_CHARACTERS.sub("", line.split("#", 1)[0]).replace("\t", " ")


def parse_line(line: str) -> tuple[str, list[str]] | None:
    """(id, words) of an input line, words[0] the command if any; None for a line that gets
    no answer (empty, or a comment)."""
    words = clean_line(line).split()
    if not words:
        return None
    number = words.pop(0) if words[0].isascii() and words[0].isdigit() else ""
    return number, words


def answer(mark: str, number: str, text: str) -> str:
    return f"{mark}{number} {text}".rstrip() + "\n\n"


# the answers that need no game: the starting engine gives them, and the engine after it
GAME_FREE_ANSWERS = {"protocol_version": lambda: "2", "name": lambda: ENGINE_NAME,
                     "version": engine_version, "list_commands": lambda: "\n".join(COMMAND_NAMES)}
