"""One game in the page: the position, who plays which side, the moves, undo and the agent.

No HTTP here: a refused request raises Refusal (one sentence for the page) and leaves the
session as it was. A "turn" is a run of moves by one side (Connect6's two stones, one move
elsewhere; an Othello pass is a move), so undo takes back whole turns. Any earlier position
can be shown (`position`); a game of a training run's log is shown that way only (`replay`).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from alphazero.agent.agent import Thought
from alphazero.serve.board_view import (BoardView, board_view, drawn_board, flat_board,
                                        played_cell)
from games.core.board_text import move_change
from games.core.board_text import BLOCKED
from alphazero.serve.move_marks import move_marks
from games import DRAW, FIRST_WON, ONGOING, SECOND_WON, GameError
from games.core.presentation import PIECES, Presentation

STATUS_WORDS = {ONGOING: "ongoing", FIRST_WON: "black won", SECOND_WON: "white won", DRAW: "draw"}
MOST_STONES_A_TURN = 8  # how far a turn's length is looked for (Connect6: 2)
VIEW_ONLY = "this game is a training run's: it can only be viewed."
NOT_LEGAL = "That is not a legal move here."
PICK_A_PIECE = "Pick one of your pieces that can move, then the cell it goes to."
NO_MOVE = "That piece has no legal move here."


class Refusal(ValueError):
    """A request the session cannot carry out; the message is one sentence for the page."""


@dataclass
class Ply:
    before: np.ndarray   # the position the move was played in
    action: int
    mover: int           # 0 first player (black), 1 second (white)
    text: str            # the move in the game's notation
    cells: tuple[int, ...]  # the cells it touched (Game.action_cells): the one it filled, its
                            # piece's from and to, or none (a pass)
    turned: list[int]    # the cells it turned to its mover's side (Othello's flips)


class GameSession:
    def __init__(self, key: str, game, state: np.ndarray, agent, label: str, humans: set[int],
                 simulations: int, replay: dict | None = None):
        self.key, self.game, self.state = key, game, state
        self.agent, self.label = agent, label  # a NetworkAgent or PureMCTSAgent, its name
        self.humans = humans  # the seats the person plays; both: analysis, the agent only on request
        self.simulations = simulations
        self.replay = replay  # a training run's game ({"index", "network", "values"}): view only
        self.history: list[Ply] = []

    def snapshot(self) -> GameSession:
        """A copy to work out views from in a thread while this session goes on changing."""
        frozen = copy.copy(self)
        frozen.state, frozen.history, frozen.humans = self.state.copy(), list(self.history), set(self.humans)
        return frozen

    # --- moves -----------------------------------------------------------------------------
    def over(self) -> bool:
        return self.game.status(self.state) != ONGOING

    def to_move(self) -> int:
        return self.game.to_move(self.state)

    def agent_to_move(self) -> bool:
        return not self.over() and self.to_move() not in self.humans

    def setup(self, moves: list[str]) -> None:
        """Play a move list in the game's notation; the first bad move is named."""
        for number, text in enumerate(moves, start=1):
            if self.over():
                raise Refusal(f"move {number} ({text}) comes after the end of the game.")
            try:
                action = self.game.parse_move(self.state, text)
            except GameError as error:
                raise Refusal(f"move {number}: {error}") from None
            self._apply(action)

    def human_move(self, action, player) -> None:
        """A click: `action` for `player` (0 black, 1 white), checked like any outside input."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refusal("a move must be an action number.")
        if not 0 <= action < self.game.num_actions:
            raise Refusal(f"move {action} is off the board: actions go from 0 to "
                          f"{self.game.num_actions - 1}.")
        if player not in (0, 1):
            raise Refusal("the player must be 0 (who moves first) or 1 (second).")
        if self.replay:
            raise Refusal(VIEW_ONLY)
        if self.over():
            raise Refusal("the game is over; start a new game or undo.")
        side, names = self.to_move(), [name.lower() for name in self.game.presentation().side_names]
        if player != side:
            raise Refusal(f"it is {names[side]}'s turn, not {names[player]}'s.")
        if side not in self.humans:
            raise Refusal(f"{names[side]} is the agent's side.")
        if not self.game.legal_mask(self.state)[action]:
            raise Refusal(f"{self.game.format_move(self.state, action)} is not a legal move here.")
        self._apply(action)

    def think(self, simulations: int) -> Thought:
        """The agent's search of the position (read-only: it may run in a worker thread)."""
        if self.replay:
            raise Refusal(VIEW_ONLY)
        if self.over():
            raise Refusal("the game is over.")
        return self.agent.think(self.state, simulations)

    def play_thought(self, thought: Thought) -> None:
        """The agent plays the move its search chose."""
        self._apply(thought.action)

    def _apply(self, action: int) -> None:
        before, board = self.state.copy(), flat_board(self.game, self.state)
        text, mover = self.game.format_move(self.state, action), self.to_move()
        cells = self.game.action_cells(self.state, [action])[action]
        self.game.play(self.state, action)
        _, changed = move_change(board, flat_board(self.game, self.state))
        turned = [cell for cell in changed if cell not in cells]  # not a piece taken where one lands
        self.history.append(Ply(before, action, mover, text, cells, turned))

    # --- undo ------------------------------------------------------------------------------
    def undo_point(self) -> int | None:
        """How many moves stay after an undo: back to the start of the last turn, and in a
        game against the agent further back to the start of the person's last turn."""
        if self.replay:
            return None
        starts = [i for i, ply in enumerate(self.history)
                  if i == 0 or ply.mover != self.history[i - 1].mover]
        if len(self.humans) == 1:
            starts = [i for i in starts if self.history[i].mover in self.humans]
        return starts[-1] if starts else None

    def undo(self) -> None:
        if self.replay:
            raise Refusal(VIEW_ONLY)
        keep = self.undo_point()
        if keep is None:
            raise Refusal("there is no move of yours to take back.")
        self.state = self.history[keep].before.copy()
        del self.history[keep:]

    # --- what the page shows -----------------------------------------------------------------
    def result(self, status: int) -> str | None:
        if status == ONGOING:
            return None
        if status == DRAW:
            return "Draw."
        winner = 0 if status == FIRST_WON else 1
        text = f"{self.game.presentation().side_names[winner]} wins."
        if len(self.humans) == 1:
            text += " You win!" if winner in self.humans else " The agent wins."
        return text

    def position(self, ply) -> dict:
        """The board after the game's first `ply` moves with its marks: the last turn, the
        discs it turned, the winning line; the counts of pieces, and which stone of its turn
        the side to move places."""
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(self.history):
            raise Refusal(f"a position is a number of moves from 0 to {len(self.history)}.")
        state = self.history[ply].before if ply < len(self.history) else self.state
        rows, coordinates = drawn_board(self.game, state)
        board, status = "".join(rows), self.game.status(state)
        marks = move_marks(self.history[:ply], board, len(rows[0]), status in (FIRST_WON, SECOND_WON),
                           self.game.exact_winning_line)
        return {"ply": ply, "rows": rows, "coordinates": coordinates.as_dict(),
                "to_move": None if status != ONGOING else self.game.to_move(state),
                "status": STATUS_WORDS[status], "result": self.result(status),
                "last_cells": marks.last_cells, "left_cells": marks.left_cells,
                "turned": marks.turned, "win_line": marks.line,
                "counts": [board.count("X"), board.count("O")],
                "turn_stone": self.turn_stone(state, ply)}

    def turn_stone(self, state: np.ndarray, ply: int) -> list[int] | None:
        """[k, n] where the side to move is to place the k-th of n stones of its turn (n > 1);
        n is found by playing on a copy until the side to move changes."""
        if self.game.status(state) != ONGOING:
            return None
        side, placed = self.game.to_move(state), 0
        while placed < ply and self.history[ply - 1 - placed].mover == side:
            placed += 1
        left, probe = 1, state.copy()
        while left < MOST_STONES_A_TURN:
            self.game.play(probe, self.game.legal_list(probe)[0])
            if self.game.status(probe) != ONGOING or self.game.to_move(probe) != side:
                break
            left += 1
        return [placed + 1, placed + left] if placed + left > 1 else None

    def refusals(self, board: BoardView) -> dict[str, str]:
        """Why a click on each cell that plays nothing is refused, in the words the set-up
        box would use (the game's own parse_move on the cell's name), or why a `#` cell is
        never played; none where the person has no move to make. In a game of moving pieces
        a first click picks a piece: the cells refused are those no move starts from."""
        if self.replay or self.over() or self.to_move() not in self.humans:
            return {}
        flat, cols = "".join(board.rows), len(board.rows[0])
        playable = set((board.origins or board.targets).values())
        if board.column_moves:
            open_columns = {cell % cols for cell in playable}
            playable = {cell for cell in range(len(flat)) if cell % cols in open_columns}
        reasons, said = {}, {}
        for cell, mark in enumerate(flat):
            if mark == BLOCKED:
                reasons[str(cell)] = self.game.presentation().blocked_reason
            elif cell not in playable and board.origins:
                reasons[str(cell)] = NO_MOVE if mark == PIECES[self.to_move()] else PICK_A_PIECE
            elif cell not in playable:
                name = board.cell_names[cell] if board.cell_names else None
                if name not in said:
                    said[name] = self._why_not(name)
                reasons[str(cell)] = said[name]
        return reasons

    def _why_not(self, name: str | None) -> str:
        if name is None:
            return NOT_LEGAL
        try:
            self.game.parse_move(self.state, name)
        except GameError as error:
            return str(error)
        return NOT_LEGAL

    def view(self) -> dict:
        board, shown = board_view(self.game, self.state), self.game.presentation()
        return {
            "game": self.key, "game_name": self.game.name, **presentation_view(shown),
            "params": self.game.params(), "board_params": self.game.board_params(self.state),
            "agent": self.label, "humans": sorted(self.humans), "simulations": self.simulations,
            **self.position(len(self.history)),
            **moves_view(board), "buttons": {str(a): t for a, t in board.buttons.items()},
            "column_moves": board.column_moves, "refusals": self.refusals(board),
            "moves": [{"text": p.text, "mover": p.mover} for p in self.history],
            "can_undo": self.undo_point() is not None,
            "agent_to_move": self.agent_to_move(), "replay": self.replay,
        }

    def thought_view(self, thought: Thought, state: np.ndarray) -> dict:
        """A search's result as the page draws it: the value for black, each move's share of
        the visits (on its cell, or on a button), and the line in notation."""
        mover = self.game.to_move(state)
        board = board_view(self.game, state)
        total = float(thought.visits.sum()) or 1.0
        shares = {str(a): round(float(v) / total, 4) for a, v in enumerate(thought.visits) if v > 0}
        line, movers, cells, position = [], [], [], state.copy()
        for action in thought.line:
            if self.game.status(position) != ONGOING:
                break
            line.append(self.game.format_move(position, action))
            movers.append(self.game.to_move(position))
            cells.append(played_cell(self.game, position, action))
            self.game.play(position, action)
        return {"value_black": thought.value if mover == 0 else -thought.value,
                "move": self.game.format_move(state, thought.action),
                "shares": shares, **moves_view(board),
                "line": line, "line_movers": movers, "line_cells": cells, "visits": int(total)}


def moves_view(board: BoardView) -> dict:
    """The legal moves' cells for the page: `targets`, each action's cell (the one it fills or
    moves to), and `origins`, the cell each move of a piece starts from (a first click picks
    the piece, a second its target)."""
    return {"targets": {str(a): c for a, c in board.targets.items()},
            "origins": {str(a): c for a, c in board.origins.items()}}


def presentation_view(shown: Presentation) -> dict:
    """A game's words and look for the page (games.core.presentation)."""
    return {"name": shown.name, "title": shown.title, "variant": shown.variant, "rules": shown.rules,
            "board": shown.board, "colours": list(shown.side_names), "board_style": shown.board_style}
