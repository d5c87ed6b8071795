"""Qubic: tic-tac-toe on a 4x4x4 cube, written in plain Python (games.core.python_game).

Two players take turns putting a stone on any empty cell of four stacked 4x4 layers; four in
a row in any of the cube's 76 lines (rows, columns and diagonals of a layer, verticals
through the layers, and the diagonals across them) wins; a full cube is a draw.

A position is a tuple (first player's stones, second player's stones, winner) with the
stones as 64-bit masks, cell = 16 * layer + 4 * row + column. Actions are cells. Notation:
the layer (1-4), then the column (A-D) and the row (1-4), so `1A1` is a corner of the
bottom layer. Encoded planes, from the view of the side to move: its stones in layers 1-4,
then the opponent's, each a 4x4 plane of 0/1. The eight symmetries of the square turn all
layers alike.
"""
from __future__ import annotations

import numpy as np

from games.core.presentation import Presentation
from games.core.base import DRAW, FIRST_WON, ONGOING, SECOND_WON, check_param_names
from games.core.python_game import PythonGame

SIDE = 4
CELLS = SIDE ** 3
FULL = (1 << CELLS) - 1
COLUMNS = "ABCD"


def cell(layer: int, row: int, column: int) -> int:
    return SIDE * SIDE * layer + SIDE * row + column


def winning_lines() -> list[int]:
    """The 76 lines of four as masks: from each cell, each of the 13 directions, kept once."""
    lines = set()
    steps = [(dl, dr, dc) for dl in (-1, 0, 1) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
             if (dl, dr, dc) != (0, 0, 0)]
    for layer in range(SIDE):
        for row in range(SIDE):
            for column in range(SIDE):
                for dl, dr, dc in steps:
                    end = (layer + 3 * dl, row + 3 * dr, column + 3 * dc)
                    if all(0 <= x < SIDE for x in end):
                        lines.add(sum(1 << cell(layer + k * dl, row + k * dr, column + k * dc)
                                      for k in range(SIDE)))
    return sorted(lines)


LINES = winning_lines()
LINES_THROUGH = [[line for line in LINES if line >> c & 1] for c in range(CELLS)]
SHIFTS = np.arange(CELLS, dtype=np.uint64)


def square_symmetries() -> np.ndarray:
    """int64[8, 16]: the square's eight symmetries as cell permutations of one layer,
    identity first (symmetry g sends cell i to maps[g, i])."""
    index = np.arange(SIDE * SIDE).reshape(SIDE, SIDE)
    images = [np.rot90(index, k) for k in range(4)]
    images += [np.fliplr(image) for image in images]
    maps = np.zeros((8, SIDE * SIDE), dtype=np.int64)
    for g, image in enumerate(images):
        maps[g, image.reshape(-1)] = np.arange(SIDE * SIDE)
    return maps


class Qubic(PythonGame):
    name = "qubic"
    num_actions = CELLS
    planes = 2 * SIDE
    height = SIDE
    width = SIDE
    max_plies = CELLS
    num_symmetries = 8
    dirichlet_alpha = 0.3  # about 10 / the ~30 empty cells of a typical position

    def __init__(self, **params):
        check_param_names(self.name, params, [])
        cells = square_symmetries()
        actions = (cells[:, None, :] + SIDE * SIDE * np.arange(SIDE)[None, :, None]).reshape(8, CELLS)
        self.maps = (cells, actions)

    def presentation(self) -> Presentation:
        return Presentation(name="Qubic", board="4×4×4", rules=(
            "Four in a row wins in a 4×4×4 cube: along a row, a column, a pillar or any "
            "diagonal, 76 lines in all. Black moves first, one stone a turn."))

    def params(self) -> dict:
        return {}

    def start_position(self):
        return (0, 0, ONGOING)

    def legal_moves(self, position) -> list[int]:
        first, second, winner = position
        if winner != ONGOING:
            return []
        empty = FULL & ~(first | second)
        return [c for c in range(CELLS) if empty >> c & 1]

    def next_position(self, position, action: int):
        first, second, _ = position
        mover_first = bin(first).count("1") == bin(second).count("1")
        stones = (first if mover_first else second) | 1 << action
        won = any(stones & line == line for line in LINES_THROUGH[action])
        if mover_first:
            first = stones
        else:
            second = stones
        winner = (FIRST_WON if mover_first else SECOND_WON) if won else \
            (DRAW if first | second == FULL else ONGOING)
        return (first, second, winner)

    def result(self, position) -> int:
        return position[2]

    def side_to_move(self, position) -> int:
        first, second, _ = position
        return 0 if bin(first).count("1") == bin(second).count("1") else 1

    def encode_position(self, position, out: np.ndarray) -> None:
        first, second, _ = position
        own, other = (first, second) if self.side_to_move(position) == 0 else (second, first)
        out[:SIDE] = ((np.uint64(own) >> SHIFTS) & np.uint64(1)).reshape(SIDE, SIDE, SIDE)
        out[SIDE:] = ((np.uint64(other) >> SHIFTS) & np.uint64(1)).reshape(SIDE, SIDE, SIDE)

    def move_name(self, position, action: int) -> str:
        layer, rest = divmod(int(action), SIDE * SIDE)
        row, column = divmod(rest, SIDE)
        return f"{layer + 1}{COLUMNS[column]}{row + 1}"

    def symmetry_maps(self) -> tuple[np.ndarray, np.ndarray]:
        return self.maps

    def describe(self, position) -> str:
        first, second, _ = position
        rows = [" ".join(f"layer {layer + 1}  " for layer in range(SIDE))]
        for row in reversed(range(SIDE)):
            parts = []
            for layer in range(SIDE):
                marks = "".join("X" if first >> cell(layer, row, c) & 1 else
                                "O" if second >> cell(layer, row, c) & 1 else "."
                                for c in range(SIDE))
                parts.append(f"{row + 1} {marks}  ")
            rows.append(" ".join(parts))
        rows.append(" ".join("  " + COLUMNS + "   " for _ in range(SIDE)))
        mover = "X" if self.side_to_move(position) == 0 else "O"
        return "\n".join(rows) + f"\n{mover} to move (X moves first); a move is layer, column, row: 2B3."
