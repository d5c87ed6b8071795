"""The words the page uses for each game, kept here and nowhere else: each offered game's
name, board and one-line rules (by its key in alphazero.config.presets), and per game its
pieces' colour names and why a `#` cell is never played. A game missing here is offered
under its key, with black and white pieces."""
from __future__ import annotations

from dataclasses import dataclass

GOMOKU = ("Five or more in a row wins (free-style: six counts too). Black moves first, one "
          "stone a turn.")
# preset key -> (the game's name, the preset's board where it has one, its rules in one line)
PRESETS = {
    "connect6": ("Connect6", "10×10", (
        "Six or more in a row wins. Black opens with one stone, then each side places two "
        "stones a turn.")),
    "gomoku": ("Gomoku", "15×15", GOMOKU),
    "gomoku8": ("Gomoku", "8×8", GOMOKU),
    "connect4": ("Connect-4, course rules", "", (
        "Discs fall to the lowest free cell of a column; four in a row wins. Each game draws a "
        "board of 9 to 12 rows and columns with one forbidden cell that no disc may fill: discs "
        "land on top of it, and it breaks lines.")),
    "connect4_classic": ("Connect-4, classic", "6×7", (
        "Discs fall to the lowest free cell of a column; four in a row wins; a full board is a "
        "draw.")),
    "othello": ("Othello, course rules", "", (
        "The board starts empty and the four corners are never played. Any empty cell of the "
        "central 6×6 may be played, turning the discs it brackets (maybe none); an outer cell "
        "only where it turns some. A side without a move passes; more discs wins.")),
    "othello_standard": ("Othello, classic", "", (
        "Four discs start in the centre; every move must turn discs by bracketing them; a side "
        "without a move passes; more discs wins.")),
}

# game name -> the colours of the first and the second player's pieces
COLOURS = {"connect4": ("Red", "Yellow")}
DEFAULT_COLOURS = ("Black", "White")

# game name -> why its `#` cells are never played
BLOCKED = {
    "connect4": "This is the forbidden cell: no disc may fill it (discs land on top of it).",
    "othello": "The corners are never played in course Othello.",
}
DEFAULT_BLOCKED = "This cell is never played."


@dataclass
class PresetText:
    name: str    # the game's name, whatever its board
    title: str   # its name in the game list: the name and the preset's board
    rules: str   # its rules in one line


def preset_text(key: str) -> PresetText:
    name, board, rules = PRESETS.get(key, (key, "", ""))
    return PresetText(name, f"{name}, {board}" if board else name, rules)


def colour_names(game_name: str) -> tuple[str, str]:
    return COLOURS.get(game_name, DEFAULT_COLOURS)


def blocked_reason(game_name: str) -> str:
    return BLOCKED.get(game_name, DEFAULT_BLOCKED)
