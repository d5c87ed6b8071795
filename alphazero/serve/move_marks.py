"""What the page marks of the moves that led to a position: the last turn's stones (and the
cells its moved pieces left), the discs the last move turned, and the line that won.

Read from each move's cells (Game.action_cells) and turned cells (board_text.move_change), so it
holds for any game. A game in which each move has filled one cell and none has turned a disc is
a game of placing stones (Connect6, Gomoku, Connect-4): when it is won, the winner's last turn made a line, and the line marked
is the longest straight run of the winner's stones through that turn's cells (every run of
that length, where one move made two), or, where only a line of exactly N wins
(`exact_winning_line`, Gomoku's exact_five), the runs of N. A game where discs turn (Othello)
is won by counting, and one of moving pieces (Breakthrough) by where a piece goes: they mark
no line.
"""
from __future__ import annotations

from dataclasses import dataclass

from games.core.winning_line import winning_line


@dataclass
class MoveMarks:
    last_cells: list[int]   # the cells the last turn filled or moved to (both stones of a
                            # Connect6 turn)
    left_cells: list[int]   # the cells the last turn's moved pieces left
    turned: list[int]       # the cells the last move turned to its mover's side
    line: list[int]         # the winning line's cells; [] where the game is not won by one


def move_marks(moves: list, board: str, cols: int, won: bool,
               exact_line: int | None) -> MoveMarks:
    """`moves`: the moves played, each with `mover`, `cells` (session.Ply's) and `turned`;
    `board`: the flat board after them; `won`: whether the game is won; `exact_line`: the
    game's exact_winning_line."""
    if not moves:
        return MoveMarks([], [], [], [])
    turn = []
    for move in reversed(moves):
        if move.mover != moves[-1].mover:
            break
        turn.append(move)
    last_cells = sorted(m.cells[-1] for m in turn if m.cells)
    left_cells = sorted(m.cells[0] for m in turn if len(m.cells) == 2)
    placing = not any(m.turned or len(m.cells) > 1 for m in moves)
    line = winning_line(board, cols, last_cells, exact_line) if won and placing and last_cells else []
    return MoveMarks(last_cells, left_cells, list(moves[-1].turned), line)
