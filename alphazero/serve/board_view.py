"""What the page draws of a position, read from any game through the contract alone
(games.core.base).

The board comes from the game (`Game.drawn_board(state)`, games.core.board_text): its rows of
one-character cells (`.` empty, `X` the first player's stone, `O` the second's, `#` a cell no
one may play) and the coordinates the page writes around them, in the game's own notation. The
cells a move touches come from the game too (`Game.action_cells`): the cell a placement fills,
or where a moving piece comes from and goes to (Breakthrough), which the page plays by two
clicks; a move that touches none (Othello's pass) becomes a button. A game whose actions are
its columns (gravity Connect-4) is played by clicking anywhere in a column, and its stones
fall. So a game added through the contract needs nothing here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.board_text import Coordinates


class BoardViewError(ValueError):
    """A game that draws no board of one-character cells the page can draw."""


@dataclass
class BoardView:
    rows: list[str]                 # each row as a string of cell marks (. X O #)
    coordinates: Coordinates
    targets: dict[int, int]         # legal action -> the flat cell it fills or moves to
    origins: dict[int, int]         # legal action that moves a piece -> the cell it leaves
    buttons: dict[int, str]         # legal actions that fill no cell (pass), with their name
    column_moves: bool              # actions are columns: a click anywhere in one plays it
    cell_names: list[str] | None    # each cell's name in the notation, where the coordinates
                                    # spell the legal moves' names; else None


def flat_board(game, state: np.ndarray) -> str:
    return "".join(drawn_board(game, state)[0])


def drawn_board(game, state: np.ndarray) -> tuple[list[str], Coordinates]:
    """The board the game draws (Game.drawn_board), or a BoardViewError saying the page
    cannot show this game."""
    drawn = game.drawn_board(state)
    if drawn is None:
        raise BoardViewError("this game draws no board of '.', 'X', 'O' and '#' cells, so the "
                             "page cannot show it; play it with python -m alphazero.play.")
    return drawn


def played_cell(game, state: np.ndarray, action: int) -> int | None:
    """The cell `action` fills or moves a piece to; None for a move that touches none, such
    as a pass."""
    cells = game.action_cells(state, [action])[action]
    return cells[-1] if cells else None


def cell_names(rows: list[str], coordinates: Coordinates, column_moves: bool) -> list[str] | None:
    """Each cell's name from the coordinates: its column's label where moves are columns,
    else the column's label and then the row's (F5, d3); None where labels are missing."""
    cols = len(rows[0])
    if not coordinates.columns or not (column_moves or coordinates.rows):
        return None
    return [coordinates.columns[c] + ("" if column_moves else coordinates.rows[r])
            for r in range(len(rows)) for c in range(cols)]


def board_view(game, state: np.ndarray) -> BoardView:
    rows, coordinates = drawn_board(game, state)
    targets, origins, buttons = {}, {}, {}
    for action, cells in game.action_cells(state, game.legal_list(state)).items():
        if not cells:
            buttons[action] = game.format_move(state, action)
            continue
        targets[action] = cells[-1]
        if len(cells) == 2:
            origins[action] = cells[0]
    column_moves = game.num_actions == game.width
    names = cell_names(rows, coordinates, column_moves)
    # trusted only where they spell every legal move as the game writes it
    if names and any(names[cell] != game.format_move(state, a) for a, cell in targets.items()):
        names = None
    return BoardView(rows, coordinates, targets, origins, buttons, column_moves, names)
