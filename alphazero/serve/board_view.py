"""What the page draws of a position, read from any game through the contract alone
(games.core.base).

The board comes from `render(state)`: its rows of one-character cells (`.` empty, `X` the
first player's stone, `O` the second's, `#` a cell no one may play), with row labels allowed
at either end of each row and a line of column labels above or below: the coordinates the
page writes around the board, in the game's own notation. The cell a move fills is found by
playing each legal move on a copy and seeing which empty cell it fills; a move that fills
none (Othello's pass) becomes a button. A game whose actions are its columns (gravity
Connect-4) is played by clicking anywhere in a column, and its stones fall. So a game added
through the contract needs nothing here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.board_text import BLOCKED, CELL_MARKS, move_change


class BoardViewError(ValueError):
    """A game whose `render` has no board of one-character cells the page can draw."""


@dataclass
class Coordinates:
    columns: list[str]      # each column's label, left to right ([] where the rendering has none)
    columns_at: str         # where the rendering writes them: "top" or "bottom"
    rows: list[str]         # each row's label, top to bottom ([] where none)
    rows_at: str            # "left" or "right"

    def as_dict(self) -> dict:
        return {"columns": self.columns, "columns_at": self.columns_at,
                "rows": self.rows, "rows_at": self.rows_at}


@dataclass
class BoardView:
    rows: list[str]                 # each row as a string of cell marks (. X O #)
    coordinates: Coordinates
    targets: dict[int, int]         # legal action -> the flat cell it fills
    buttons: dict[int, str]         # legal actions that fill no cell (pass), with their name
    column_moves: bool              # actions are columns: a click anywhere in one plays it
    cell_names: list[str] | None    # each cell's name in the notation, where the coordinates
                                    # spell the legal moves' names; else None


def _board_line(line: str) -> tuple[str, str | None, str | None] | None:
    """A board row's cell marks and its numeric labels at the start and the end, or None."""
    tokens = line.split()
    start = tokens.pop(0) if tokens and tokens[0].isdigit() else None
    end = tokens.pop() if tokens and tokens[-1].isdigit() else None
    if tokens and all(t in CELL_MARKS for t in tokens):
        return "".join(tokens), start, end
    return None


def _column_labels(line: str, count: int) -> list[str] | None:
    """A line of `count` column labels (A B C ..., a b c ..., 1 2 3 ...), or None."""
    tokens = line.split()
    letters = all(len(t) == 1 and t.isalpha() for t in tokens)
    if len(tokens) == count and (letters or all(t.isdigit() for t in tokens)):
        return tokens
    return None


def read_board(text: str, width: int | None = None) -> tuple[list[str], Coordinates]:
    """The board's rows from a rendering (the first run of lines whose tokens, less a leading
    and a trailing numeric label, are all cell marks, all of one length) and its coordinates."""
    lines = text.splitlines()
    found: list[tuple[int, str, str | None, str | None]] = []
    for index, line in enumerate(lines):
        row = _board_line(line)
        if row is None or (found and len(row[0]) != len(found[0][1])):
            if found:
                break
            continue
        found.append((index, *row))
    if not found or (width is not None and len(found[0][1]) > width):
        raise BoardViewError("this game's render() draws no board of '.', 'X', 'O' and '#' "
                             "cells, so the page cannot show it.")
    rows = [marks for _, marks, _, _ in found]
    first, last = found[0][0], found[-1][0]
    above = _column_labels(lines[first - 1], len(rows[0])) if first > 0 else None
    below = _column_labels(lines[last + 1], len(rows[0])) if last + 1 < len(lines) else None
    left, right = [row[2] for row in found], [row[3] for row in found]
    row_labels, rows_at = (left, "left") if None not in left else (right, "right")
    return rows, Coordinates(above or below or [], "top" if above else "bottom",
                             row_labels if None not in row_labels else [], rows_at)


def flat_board(game, state: np.ndarray) -> str:
    return "".join(read_board(game.render(state), game.width)[0])


def filled_cell(game, state: np.ndarray, action: int, before: str | None = None) -> int | None:
    """The one empty cell that `action` fills in `state` (`before`: its flat board, if known);
    None for a move that fills none, such as a pass."""
    after_state = state.copy()
    game.play(after_state, action)
    before = before if before is not None else flat_board(game, state)
    return move_change(before, flat_board(game, after_state))[0]


def cell_names(rows: list[str], coordinates: Coordinates, column_moves: bool) -> list[str] | None:
    """Each cell's name from the coordinates: its column's label where moves are columns,
    else the column's label and then the row's (F5, d3); None where labels are missing."""
    cols = len(rows[0])
    if not coordinates.columns or not (column_moves or coordinates.rows):
        return None
    return [coordinates.columns[c] + ("" if column_moves else coordinates.rows[r])
            for r in range(len(rows)) for c in range(cols)]


def board_view(game, state: np.ndarray) -> BoardView:
    rows, coordinates = read_board(game.render(state), game.width)
    before = "".join(rows)
    targets, buttons = {}, {}
    for action in game.legal_list(state):
        cell = filled_cell(game, state, action, before)
        if cell is None:
            buttons[action] = game.format_move(state, action)
        else:
            targets[action] = cell
    column_moves = game.num_actions == game.width
    names = cell_names(rows, coordinates, column_moves)
    # trusted only where they spell every legal move as the game writes it
    if names and any(names[cell] != game.format_move(state, a) for a, cell in targets.items()):
        names = None
    return BoardView(rows, coordinates, targets, buttons, column_moves, names)
