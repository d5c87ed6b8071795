"""What the page draws, read from any game through the contract alone (games.core.base).

The board comes from `render(state)`: its rows of one-character cells (`.` empty, `X` the
first player's stone, `O` the second's, `#` a cell no one may play), with row labels allowed
at either end. The cell a move fills is found by playing each legal move on a copy and
seeing which empty cell it fills; a move that fills none (Othello's pass) becomes a button.
A game whose actions are its columns (gravity Connect-4) is played by clicking anywhere in
a column, and its stones fall. So a game added through the contract needs nothing here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELL_MARKS = frozenset(".XO#")
EMPTY = "."


class BoardViewError(ValueError):
    """A game whose `render` has no board of one-character cells the page can draw."""


@dataclass
class BoardView:
    rows: list[str]                 # each row as a string of cell marks (. X O #)
    targets: dict[int, int]         # legal action -> the flat cell it fills
    buttons: dict[int, str]         # legal actions that fill no cell (pass), with their name
    column_moves: bool              # actions are columns: a click anywhere in one plays it


def board_rows(text: str, width: int | None = None) -> list[str]:
    """The board's rows from a rendering: the first run of lines whose tokens, less a
    leading and a trailing numeric label, are all cell marks, all of one length."""
    rows: list[str] = []
    for line in text.splitlines():
        tokens = line.split()
        if tokens and tokens[0].isdigit():
            tokens = tokens[1:]
        if tokens and tokens[-1].isdigit():
            tokens = tokens[:-1]
        is_row = bool(tokens) and all(t in CELL_MARKS for t in tokens)
        if is_row and (not rows or len(tokens) == len(rows[0])):
            rows.append("".join(tokens))
        elif rows:
            break
    if not rows or (width is not None and len(rows[0]) > width):
        raise BoardViewError("this game's render() draws no board of '.', 'X', 'O' and '#' "
                             "cells, so the page cannot show it.")
    return rows


def flat_board(game, state: np.ndarray) -> str:
    return "".join(board_rows(game.render(state), game.width))


def filled_cell(game, state: np.ndarray, action: int, before: str | None = None) -> int | None:
    """The one empty cell that `action` fills in `state` (`before`: its flat board, if known);
    None for a move that fills none, such as a pass."""
    after_state = state.copy()
    game.play(after_state, action)
    before = before if before is not None else flat_board(game, state)
    after = flat_board(game, after_state)
    filled = [i for i, (a, b) in enumerate(zip(before, after)) if a == EMPTY and b != EMPTY]
    return filled[0] if len(filled) == 1 else None


def board_view(game, state: np.ndarray) -> BoardView:
    rows = board_rows(game.render(state), game.width)
    before = "".join(rows)
    targets, buttons = {}, {}
    for action in game.legal_list(state):
        cell = filled_cell(game, state, action, before)
        if cell is None:
            buttons[action] = game.format_move(state, action)
        else:
            targets[action] = cell
    return BoardView(rows, targets, buttons, column_moves=game.num_actions == game.width)
