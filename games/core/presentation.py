"""How a game shows itself to people: its name, what a variant changes, its rules in one
line, its sides' colours, why a blocked cell is never played and how its board is drawn.
Every front end (the terminal, the engine, the web board) takes these words from the game,
so a new game brings its own and no front end keeps a table of games."""
from __future__ import annotations

from dataclasses import dataclass

# How a board is drawn: stones on the lines' crossings (Go-style), discs in the squares,
# discs falling down columns, or pieces on the light and dark squares of a board they move on
# (Breakthrough).
BOARD_STYLES = ("stones", "squares", "columns", "chequered")
PIECES = "XO"  # the first and the second player's pieces in a text board (render())


@dataclass(frozen=True)
class Presentation:
    name: str                    # the game as people know it: "Connect-4"
    rules: str                   # its rules in one line, for this variant
    variant: str = ""            # what this variant changes, "" for the usual rules
    board: str = ""              # the board's size where it is one, "6×7"
    side_names: tuple[str, str] = ("Black", "White")  # first and second player's pieces
    blocked_reason: str = "This cell is never played."  # a `#` cell, where the game has one
    board_style: str = "stones"
    pieces: str = PIECES         # the characters the text board draws their pieces with

    @property
    def title(self) -> str:
        """The name with its variant or board: "Connect-4, 6×7"."""
        return ", ".join(part for part in (self.name, self.variant or self.board) if part)

    def side(self, seat: int) -> str:
        """A side as the text boards draw it: its colour and its piece, "Red (X)" (render()
        draws the first player's pieces X and the second's O, or as `pieces` says)."""
        return f"{self.side_names[seat]} ({self.pieces[seat]})"
