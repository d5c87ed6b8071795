"""OpenSpiel's two-player, zero-sum, deterministic games of perfect information, through the
plain-Python contract (games.core.python_game): `game=openspiel:NAME`, with OpenSpiel's own
parameters, `openspiel:hex(board_size=9)`.

A position is an OpenSpiel state (`child` makes the next one). The encoding is OpenSpiel's
observation tensor of the side to move, and one more plane of ones when the second player
moves: many games' tensors show the board by colour, the same for both players (Hex,
Connect Four, Breakthrough), and the network must know whose turn it is. Moves are
OpenSpiel's action strings. The symmetries are the identity unless the game declares more
in games.openspiel.symmetries (Hex's half turn, Connect Four's and Breakthrough's mirror
image); random playouts run through OpenSpiel unless compiled in games.openspiel.playouts
(Hex). The package `open-spiel` is an optional extra (`pip install '.[openspiel]'`),
imported when a game is built.

For the web board, the board is read from OpenSpiel's text of the position (`drawn_board`),
and a game whose first moves each name two cells of it ("a5b4") is one of moving pieces
(`moves_pieces`): its moves' cells (`action_cells`) are read from their action strings.
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import string
import sys

import numpy as np

from games.core.board_text import Coordinates
from games.core.presentation import PIECES, Presentation
from games.core.base import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError, check_param_names
from games.core.python_game import PythonGame
from games.openspiel.playouts import PLAYOUTS
from games.openspiel.symmetries import declared_symmetries

INSTALL = "OpenSpiel's games need the open-spiel package: pip install '.[openspiel]'."
# The characters OpenSpiel's texts draw a board with: empty cells, the first player's pieces
# (x, black) and the second's (o, white), as cell marks (games.core.board_text)
GRID_MARKS = {".": ".", "-": ".", "x": "X", "b": "X", "o": "O", "w": "O"}
# A cell in a move string, column letter and row number ("a5"); a move from cell to cell is
# two of them with at most these between or after ("a5b4", "a5b4*" a capture, "b1-h1", "c1xa3")
CELL_NAME = re.compile(r"([a-z])(\d+)")
MOVE_SEPARATORS = "-x*"
SWAPPED = {"X": "O", "O": "X"}


def load_openspiel_game(spec: str):
    """OpenSpiel's game for `spec` ("hex(board_size=9)"), or a GameError in one sentence when
    it is unknown or not a game this pipeline plays."""
    if OpenSpielGame.unavailable() is not None:
        raise GameError(INSTALL)
    import pyspiel
    short_name = spec.partition("(")[0].strip()
    if short_name not in pyspiel.registered_names():  # before load_game, which prints them all
        raise GameError(f"OpenSpiel has no game '{short_name}'; its games are listed by "
                        f"python -c 'import pyspiel; print(pyspiel.registered_names())'.")
    try:
        with quiet_stderr():  # OpenSpiel prints its error before raising it
            game = pyspiel.load_game(spec)
    except pyspiel.SpielError as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else "unknown game"
        raise GameError(f"OpenSpiel cannot load '{spec}': {reason}.") from None
    kind = game.get_type()
    game_type = pyspiel.GameType
    if not (game.num_players() == 2 and kind.dynamics == game_type.Dynamics.SEQUENTIAL
            and kind.chance_mode == game_type.ChanceMode.DETERMINISTIC
            and kind.information == game_type.Information.PERFECT_INFORMATION
            and kind.utility == game_type.Utility.ZERO_SUM
            and kind.provides_observation_tensor):
        raise GameError(f"openspiel:{spec} is not a two-player, zero-sum, deterministic game "
                        f"of perfect information with an observation tensor, which is what "
                        f"this pipeline plays.")
    return game


@contextlib.contextmanager
def quiet_stderr():
    """File descriptor 2 sent to /dev/null inside the block (C++ writes there directly)."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def board_shape(shape: list[int]) -> tuple[int, int, int]:
    """An observation tensor's shape as [planes, height, width]."""
    return tuple([1] * (3 - len(shape)) + list(shape)) if len(shape) < 3 else \
        (int(np.prod(shape[:-2])), shape[-2], shape[-1])


class OpenSpielGame(PythonGame):
    name = "openspiel"
    typed_params = ("game",)  # any of OpenSpiel's games with its parameters

    @staticmethod
    def unavailable() -> str | None:
        return None if importlib.util.find_spec("pyspiel") else INSTALL

    def __init__(self, **params):
        check_param_names(self.name, params, ["game"])
        spec = str(params.get("game", "connect_four")).strip()
        self.spiel = load_openspiel_game(spec)
        self.spec = spec
        planes, self.height, self.width = board_shape(self.spiel.observation_tensor_shape())
        self.observation_planes = planes
        self.planes = planes + 1  # and the side to move
        self.num_actions = self.spiel.num_distinct_actions()
        self._max_plies = self.spiel.max_game_length()
        start = self.spiel.new_initial_state()
        self.dirichlet_alpha = min(1.0, 10.0 / len(start.legal_actions()))
        short_name = spec.partition("(")[0].strip()
        cells, actions, self.plane_symmetries = declared_symmetries(self, short_name, start)
        if short_name in PLAYOUTS:  # compiled random playouts (games.openspiel.playouts)
            self.play_out = PLAYOUTS[short_name](self)
        self._symmetry_maps, self.num_symmetries = (cells, actions), len(cells)
        self.moves_pieces, self.marks = self.read_moving_pieces(start)
        self.text_pieces = self.read_text_pieces(start)

    def read_moving_pieces(self, start) -> tuple[bool, dict[str, str]]:
        """Whether each of the first moves takes a piece from one cell of the drawn grid to
        another, and the cell marks of the text's characters (GRID_MARKS): in a game of
        moving pieces, those the first player moves are drawn X whatever OpenSpiel's
        character for them (Clobber's first player moves its o)."""
        grid = self.text_grid(start)
        moves = [self.cells_named(self.move_name(start, action), grid) for action in start.legal_actions()]
        if not (moves and all(moves)):
            return False, GRID_MARKS
        row, column = divmod(moves[0][0], self.width)
        if GRID_MARKS[grid[0][row][column]] == "O":
            return True, {char: SWAPPED.get(mark, mark) for char, mark in GRID_MARKS.items()}
        return True, GRID_MARKS

    def read_text_pieces(self, start) -> str:
        """The characters OpenSpiel's text draws the first and the second player's pieces
        with ("xo" in Hex, "bw" in Breakthrough), as read from its texts of the first plies;
        "XO" where the text is no grid."""
        seen, position = set(), start
        for _ in range(3):
            grid = self.text_grid(position)
            if grid is None or position.is_terminal():
                break
            seen |= set("".join(grid[0]))
            position = position.child(position.legal_actions()[0])
        pieces = [next((char for char in GRID_MARKS if char in seen and self.marks[char] == mark), None)
                  for mark in "XO"]
        return "".join(pieces) if all(pieces) else PIECES

    def symmetry_maps(self) -> tuple[np.ndarray, np.ndarray]:
        return self._symmetry_maps

    @property
    def max_plies(self) -> int:
        return self._max_plies

    def presentation(self) -> Presentation:
        """OpenSpiel's long name and its parameters; the rules are OpenSpiel's own."""
        name = self.spiel.get_type().long_name
        style = "columns" if self.num_actions == self.width else \
            "chequered" if self.moves_pieces else "stones"
        return Presentation(name=name, board=f"{self.height}×{self.width}", board_style=style,
                            pieces=self.text_pieces,
                            variant=self.spec if "(" in self.spec else "",
                            rules=f"{name} as OpenSpiel plays it (its game '{self.spec}'); moves "
                                  "are written in OpenSpiel's action strings.")

    def params(self) -> dict:
        return {"game": self.spec}

    def run_suffix(self) -> str:
        return re.sub(r"[^a-z0-9]+", "_", self.spec.lower()).strip("_")

    def start_position(self):
        return self.spiel.new_initial_state()

    def legal_moves(self, position) -> list[int]:
        return position.legal_actions()

    def next_position(self, position, action: int):
        return position.child(action)

    def result(self, position) -> int:
        if not position.is_terminal():
            return ONGOING
        first = position.returns()[0]
        return FIRST_WON if first > 0 else SECOND_WON if first < 0 else DRAW

    def side_to_move(self, position) -> int:
        return max(position.current_player(), 0)  # a finished game's (negative) reads as 0

    def encode_position(self, position, out: np.ndarray) -> None:
        mover = self.side_to_move(position)
        tensor = np.asarray(position.observation_tensor(mover), dtype=np.float32)
        out[:self.observation_planes] = tensor.reshape(self.observation_planes, self.height, self.width)
        out[self.observation_planes] = mover

    def move_name(self, position, action: int) -> str:
        return position.action_to_string(self.side_to_move(position), int(action))

    def describe(self, position) -> str:
        mover = "" if position.is_terminal() else \
            f"\n{'first' if self.side_to_move(position) == 0 else 'second'} player to move."
        return str(position).rstrip() + mover

    def drawn_board(self, state: np.ndarray) -> tuple[list[str], Coordinates] | None:
        """The board read from OpenSpiel's own text of the position (`text_grid`), for a game
        whose moves each place a piece (an action a cell, a pass, or a column's lowest free
        cell: Connect Four, Hex, Tic-Tac-Toe, Othello) or move one from cell to cell
        (`moves_pieces`: Breakthrough, Clobber, Lines of Action); None for any other
        (Amazons' turns of three actions, Checkers' kings) or where the text is no such grid.
        The coordinates are the text's own where it writes them (Breakthrough's a-f and 6-1),
        else numbers."""
        cells = self.width * self.height
        if not (self.moves_pieces or self.num_actions in (self.width, cells, cells + 1)):
            return None
        grid = self.text_grid(self.position(state))
        if grid is None:
            return None
        chars, row_labels, column_labels = grid
        rows = ["".join(self.marks[char] for char in row) for row in chars]
        return rows, Coordinates(
            column_labels or [str(column + 1) for column in range(self.width)], "bottom",
            row_labels or [str(self.height - row) for row in range(self.height)], "left")

    def text_grid(self, position) -> tuple[list[str], list[str], list[str]] | None:
        """OpenSpiel's text of `position` as a grid of one character a cell, as wide and as
        high as the observation (its first `height` rows), with its row labels (the number
        at each row's start, [] where a row has none) and its column labels (a line of the
        letters a, b, c... just below or above the grid, [] where there is none); None where
        the text draws no such grid."""
        lines = str(position).splitlines()
        rows, labels, first = [], [], None
        for index, line in enumerate(lines):
            read = self.grid_row(line)
            if read is None:
                if rows:
                    break
                continue
            first = index if first is None else first
            rows.append(read[1])
            labels.append(read[0])
        if len(rows) < self.height:
            return None
        around = [lines[at] for at in (first + self.height, first - 1) if 0 <= at < len(lines)]
        letters = string.ascii_lowercase[:self.width]
        columns = next((list(letters) for line in around if "".join(line.split()).lower() == letters), [])
        row_labels = labels[:self.height] if all(labels[:self.height]) else []
        return rows[:self.height], row_labels, columns

    def grid_row(self, line: str) -> tuple[str, str] | None:
        """One text line as (its row label, "" where none; its cells' characters), or None
        where it is not a row of `width` cells of GRID_MARKS."""
        tokens = line.split()
        label = ""
        while tokens and tokens[0].isdigit():
            label = tokens.pop(0)
        while tokens and tokens[-1].isdigit():
            tokens.pop()
        text = "".join(tokens)
        digits = len(text) - len(text.lstrip("0123456789"))  # a label written against the row
        label, text = label or text[:digits], text[digits:]
        if len(text) != self.width or not set(text) <= set(GRID_MARKS):
            return None
        return label, text

    def action_cells(self, state: np.ndarray, actions) -> dict[int, tuple[int, ...]]:
        """Moves from cell to cell read from their action strings ("a5b4", "a5b4*" a capture,
        "c1xa3"): (from, to) on the drawn grid, by the coordinates the board shows; any other
        action as any game's (Game.action_cells)."""
        if not self.moves_pieces:
            return super().action_cells(state, actions)
        position = self.position(state)
        grid = self.text_grid(position)
        cells = {action: self.cells_named(self.move_name(position, action), grid) for action in actions}
        unread = [action for action, named in cells.items() if named is None]
        return {**cells, **super().action_cells(state, unread)} if unread else cells

    def cells_named(self, move: str, grid) -> tuple[int, ...] | None:
        """The cells a move string names, (from, to) on `grid` (text_grid's), or None where it
        is not two cells of that grid and only separators besides."""
        if grid is None or re.sub(CELL_NAME, "", move).strip(MOVE_SEPARATORS):
            return None
        _, row_labels, column_labels = grid
        cells = []
        for column, row in CELL_NAME.findall(move):
            if column not in column_labels or row not in row_labels:
                return None
            cells.append(row_labels.index(row) * self.width + column_labels.index(column))
        return tuple(cells) if len(cells) == 2 else None
