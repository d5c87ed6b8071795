"""The board a game's `render(state)` draws, read as text: its rows of one-character cells
(`.` empty, `X` the first player's piece, `O` the second's, `#` a cell no one may play), each
row with a number label allowed at either end. The web board reads it to draw any game, and
the terminal marks on it the last turn and the winning line and adds a legend of its symbols.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from games.core.presentation import Presentation

CELL_MARKS = frozenset(".XO#")
STONES = frozenset("XO")
EMPTY, BLOCKED = ".", "#"
WORD = re.compile(r"\S+")
# What the terminal puts around marked cells: one pair around each run of them in a text row.
LAST_TURN = "()"
WINNING_LINE = "[]"


@dataclass
class Coordinates:
    columns: list[str]      # each column's label, left to right ([] where the rendering has none)
    columns_at: str         # where the rendering writes them: "top" or "bottom"
    rows: list[str]         # each row's label, top to bottom ([] where none)
    rows_at: str            # "left" or "right"

    def as_dict(self) -> dict:
        return {"columns": self.columns, "columns_at": self.columns_at,
                "rows": self.rows, "rows_at": self.rows_at}


def _column_labels(line: str, count: int) -> list[str] | None:
    """A line of `count` column labels (A B C ..., a b c ..., 1 2 3 ...), or None."""
    tokens = line.split()
    letters = all(len(t) == 1 and t.isalpha() for t in tokens)
    if len(tokens) == count and (letters or all(t.isdigit() for t in tokens)):
        return tokens
    return None


def read_board(text: str, width: int | None = None) -> tuple[list[str], Coordinates] | None:
    """The board's rows of cell marks (board_cells' rows, at most `width` cells wide) and its
    coordinates: the rows' number labels and a line of column labels above or below; None
    where the text draws no board."""
    lines = text.splitlines()
    rows = board_cells(text)
    if not rows or (width is not None and len(rows[0][1]) > width):
        return None
    marks = ["".join(lines[index][at] for at in cells) for index, cells in rows]
    words = [lines[index].split() for index, _ in rows]
    left = [w[0] if w[0].isdigit() else None for w in words]
    right = [w[-1] if w[-1].isdigit() else None for w in words]
    first, last = rows[0][0], rows[-1][0]
    above = _column_labels(lines[first - 1], len(marks[0])) if first > 0 else None
    below = _column_labels(lines[last + 1], len(marks[0])) if last + 1 < len(lines) else None
    row_labels, rows_at = (left, "left") if None not in left else (right, "right")
    return marks, Coordinates(above or below or [], "top" if above else "bottom",
                              row_labels if None not in row_labels else [], rows_at)


def board_cells(text: str) -> list[tuple[int, list[int]]]:
    """Where the board's cells sit in `text`, row by row: (line index, each cell's character
    index). The board is the first run of lines whose words, less a number at either end,
    are all cell marks, equally many in each line."""
    rows: list[tuple[int, list[int]]] = []
    for index, line in enumerate(text.splitlines()):
        words = list(WORD.finditer(line))
        if words and words[0].group().isdigit():
            words.pop(0)
        if words and words[-1].group().isdigit():
            words.pop()
        if (words and all(word.group() in CELL_MARKS for word in words)
                and (not rows or len(words) == len(rows[0][1]))):
            rows.append((index, [word.start() for word in words]))
        elif rows:
            break
    return rows


def flat_board(text: str) -> tuple[str, int]:
    """The board's cell marks row by row as one string, and its number of columns ("", 0
    where `text` draws no board of cell marks, as a game in Python may not)."""
    lines = text.splitlines()
    rows = board_cells(text)
    if not rows:
        return "", 0
    return "".join(lines[index][at] for index, cells in rows for at in cells), len(rows[0][1])


def move_change(before: str, after: str) -> tuple[int | None, list[int]]:
    """From the flat boards before and after a move: the one empty cell it filled (None for a
    move that fills none, such as a pass) and the cells it turned from one side's to the
    other's (Othello's flips)."""
    filled = [i for i, (a, b) in enumerate(zip(before, after)) if a == EMPTY and b != EMPTY]
    turned = [i for i, (a, b) in enumerate(zip(before, after)) if a != b and {a, b} <= STONES]
    return (filled[0] if len(filled) == 1 else None), turned


def marked_board(text: str, last_turn: list[int], line: list[int]) -> str:
    """`text` with the cells of the last turn in parentheses and those of the winning line in
    brackets (where both, brackets); adjacent marked cells of one text row share a pair."""
    rows = board_cells(text)
    if not (last_turn or line) or not rows:
        return text
    lines = [list(row) for row in text.splitlines()]
    cols = len(rows[0][1])
    pairs = {cell: WINNING_LINE for cell in line}
    pairs.update({cell: LAST_TURN for cell in last_turn if cell not in pairs})
    for cell, pair in pairs.items():
        r, c = divmod(cell, cols)
        index, cells = rows[r]
        chars, at = lines[index], cells[c]
        if c == 0 or pairs.get(cell - 1) != pair:
            chars[at - 1] = pair[0]  # a render leaves a space (or a label's) before each cell
        if c == cols - 1 or pairs.get(cell + 1) != pair:
            chars[at + 1:at + 2] = pair[1]  # the space after it, or the line's end
    return "\n".join("".join(chars) for chars in lines)


def legend(presentation: Presentation, text: str, last_turn: bool, line: bool) -> str:
    """One line naming every symbol on the board `text` draws: the sides' pieces in the
    presentation's colours, the marks of the last turn and the winning line where shown, and
    `#` with why it is never played where the board has one."""
    first, second = presentation.side_names
    parts = [f"{presentation.pieces[0]} {first}", f"{presentation.pieces[1]} {second}"]
    if last_turn:
        parts.append(f"{LAST_TURN[0]} {LAST_TURN[1]} the last move")
    if line:
        parts.append(f"{WINNING_LINE[0]} {WINNING_LINE[1]} the winning line")
    words = "Legend: " + ", ".join(parts) + "."
    board, _ = flat_board(text)
    if BLOCKED in board:
        words += f" {BLOCKED}: {presentation.blocked_reason}"
    return words
