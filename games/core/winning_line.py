"""The line that won a game of placing stones (Connect6, Gomoku, Connect-4), read from a flat
board of one-character cells (games.core.board_text): the web board rings it and the terminal
brackets it."""
from __future__ import annotations

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def winning_line(board: str, cols: int, cells: list[int], exact_line: int | None) -> list[int]:
    """The longest straight runs of one side's stones through `cells` on the flat board, or
    its runs of exactly `exact_line` stones."""
    runs = [_run(board, cols, cell, step) for cell in cells for step in DIRECTIONS]
    if exact_line is not None:
        runs = [run for run in runs if len(run) == exact_line] or runs
    longest = max(len(run) for run in runs)
    return sorted({cell for run in runs if len(run) == longest for cell in run})


def _run(board: str, cols: int, cell: int, step: tuple[int, int]) -> list[int]:
    """The cells of the straight run of `cell`'s mark through it, both ways along `step`."""
    rows, mark = len(board) // cols, board[cell]
    run = [cell]
    for sign in (1, -1):
        r, c = divmod(cell, cols)
        while True:
            r, c = r + sign * step[0], c + sign * step[1]
            if not (0 <= r < rows and 0 <= c < cols) or board[r * cols + c] != mark:
                break
            run.append(r * cols + c)
    return run
