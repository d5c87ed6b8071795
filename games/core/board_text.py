"""The board a game's `render(state)` draws, read as text: its rows of one-character cells
(`.` empty, `X` the first player's piece, `O` the second's, `#` a cell no one may play), each
row with a number label allowed at either end. The web board reads it to draw any game, and
the terminal marks on it the last turn and the winning line and adds a legend of its symbols.
"""
from __future__ import annotations

import re

from games.core.presentation import Presentation

CELL_MARKS = frozenset(".XO#")
STONES = frozenset("XO")
EMPTY, BLOCKED = ".", "#"
WORD = re.compile(r"\S+")
# What the terminal puts around marked cells: one pair around each run of them in a text row.
LAST_TURN = "()"
WINNING_LINE = "[]"


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
    parts = [f"X {first}", f"O {second}"]
    if last_turn:
        parts.append(f"{LAST_TURN[0]} {LAST_TURN[1]} the last move")
    if line:
        parts.append(f"{WINNING_LINE[0]} {WINNING_LINE[1]} the winning line")
    words = "Legend: " + ", ".join(parts) + "."
    board, _ = flat_board(text)
    if BLOCKED in board:
        words += f" {BLOCKED}: {presentation.blocked_reason}"
    return words
