"""What the page marks of the moves that led to a position: the last turn's stones, the discs
the last move turned, and the line that won.

Read from each move's filled cell and turned cells (board_view.move_change), so it holds for
any game. A game in which no move has turned a disc is a game of placing stones (Connect6,
Gomoku, Connect-4): when it is won, the winner's last turn made a line, and the line marked
is the longest straight run of the winner's stones through that turn's cells (every run of
that length, where one move made two), or, where only a line of exactly N wins
(`exact_winning_line`, Gomoku's exact_five), the runs of N. A game where discs turn (Othello)
is won by counting and marks no line.
"""
from __future__ import annotations

from dataclasses import dataclass

from games.core.winning_line import winning_line


@dataclass
class MoveMarks:
    last_cells: list[int]   # the cells the last turn filled (both stones of a Connect6 turn)
    turned: list[int]       # the cells the last move turned to its mover's side
    line: list[int]         # the winning line's cells; [] where the game is not won by one


def move_marks(moves: list, board: str, cols: int, won: bool,
               exact_line: int | None) -> MoveMarks:
    """`moves`: the moves played, each with `mover`, `filled` (a cell or None) and `turned`;
    `board`: the flat board after them; `won`: whether the game is won; `exact_line`: the
    game's exact_winning_line."""
    if not moves:
        return MoveMarks([], [], [])
    turn = []
    for move in reversed(moves):
        if move.mover != moves[-1].mover:
            break
        turn.append(move)
    last_cells = sorted(m.filled for m in turn if m.filled is not None)
    placing = not any(m.turned for m in moves)
    line = winning_line(board, cols, last_cells, exact_line) if won and placing and last_cells else []
    return MoveMarks(last_cells, list(moves[-1].turned), line)
