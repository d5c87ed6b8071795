"""One game in the page: the position, who plays which side, the moves, undo and the agent.

No HTTP here: a refused request raises Refusal (one sentence for the page) and leaves the
session as it was. A "turn" is a run of moves by one side (Connect6's two stones, one move
elsewhere; an Othello pass is a move), so undo takes back whole turns.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alphazero.agent.agent import Thought
from alphazero.serve.board_view import board_rows, board_view, filled_cell
from games import DRAW, FIRST_WON, ONGOING, GameError

COLOURS = ("black", "white")
STATUS_WORDS = {ONGOING: "ongoing", FIRST_WON: "black won", 2: "white won", DRAW: "draw"}


class Refusal(ValueError):
    """A request the session cannot carry out; the message is one sentence for the page."""


@dataclass
class Ply:
    before: np.ndarray   # the position the move was played in
    action: int
    mover: int           # 0 first player (black), 1 second (white)
    text: str            # the move in the game's notation


class GameSession:
    def __init__(self, key: str, game, state: np.ndarray, agent, label: str, humans: set[int],
                 simulations: int):
        self.key, self.game, self.state = key, game, state
        self.agent, self.label = agent, label  # a NetworkAgent or PureMCTSAgent, its name
        self.humans = humans  # the seats the person plays; both: analysis, the agent only on request
        self.simulations = simulations
        self.history: list[Ply] = []

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
            raise Refusal("the player must be 0 (black) or 1 (white).")
        if self.over():
            raise Refusal("the game is over; start a new game or undo.")
        side = self.to_move()
        if player != side:
            raise Refusal(f"it is {COLOURS[side]}'s turn, not {COLOURS[player]}'s.")
        if side not in self.humans:
            raise Refusal(f"{COLOURS[side]} is the agent's side.")
        if not self.game.legal_mask(self.state)[action]:
            raise Refusal(f"{self.game.format_move(self.state, action)} is not a legal move here.")
        self._apply(action)

    def think(self, simulations: int) -> Thought:
        """The agent's search of the position (read-only: it may run in a worker thread)."""
        if self.over():
            raise Refusal("the game is over.")
        return self.agent.think(self.state, simulations)

    def play_thought(self, thought: Thought) -> None:
        """The agent plays the move its search chose."""
        self._apply(thought.action)

    def _apply(self, action: int) -> None:
        text = self.game.format_move(self.state, action)
        self.history.append(Ply(self.state.copy(), action, self.to_move(), text))
        self.game.play(self.state, action)

    # --- undo ------------------------------------------------------------------------------
    def undo_point(self) -> int | None:
        """How many moves stay after an undo: back to the start of the last turn, and in a
        game against the agent further back to the start of the person's last turn."""
        starts = [i for i, ply in enumerate(self.history)
                  if i == 0 or ply.mover != self.history[i - 1].mover]
        if len(self.humans) == 1:
            starts = [i for i in starts if self.history[i].mover in self.humans]
        return starts[-1] if starts else None

    def undo(self) -> None:
        keep = self.undo_point()
        if keep is None:
            raise Refusal("there is no move of yours to take back.")
        self.state = self.history[keep].before.copy()
        del self.history[keep:]

    # --- what the page shows -----------------------------------------------------------------
    def result(self) -> str | None:
        status = self.game.status(self.state)
        if status == ONGOING:
            return None
        if status == DRAW:
            text = "Draw."
        else:
            winner = 0 if status == FIRST_WON else 1
            text = f"{COLOURS[winner].capitalize()} wins."
            if len(self.humans) == 1:
                text += " You win!" if winner in self.humans else " The agent wins."
        return text

    def caption(self) -> list[str]:
        """The lines of the game's own rendering that are not the board (counts, turn notes)."""
        text = self.game.render(self.state)
        board = set(board_rows(text, self.game.width))
        lines = []
        for line in text.splitlines():
            tokens = [t for t in line.split() if not t.isdigit()]
            if "".join(tokens) not in board and any(c.isalpha() for c in line) and not _labels(tokens):
                lines.append(line.strip())
        return lines

    def view(self) -> dict:
        board = board_view(self.game, self.state)
        last = self.history[-1] if self.history else None
        last_cell = filled_cell(self.game, last.before, last.action) if last else None
        return {
            "game": self.key, "game_name": self.game.name, "params": self.game.params(),
            "agent": self.label, "humans": sorted(self.humans),
            "simulations": self.simulations,
            "rows": board.rows, "targets": {str(a): c for a, c in board.targets.items()},
            "buttons": {str(a): t for a, t in board.buttons.items()},
            "column_moves": board.column_moves, "last_cell": last_cell,
            "to_move": None if self.over() else self.to_move(),
            "status": STATUS_WORDS[self.game.status(self.state)], "result": self.result(),
            "caption": self.caption(),
            "moves": [{"text": p.text, "mover": p.mover} for p in self.history],
            "can_undo": self.undo_point() is not None,
            "agent_to_move": self.agent_to_move(),
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
            cells.append(filled_cell(self.game, position, action))
            self.game.play(position, action)
        return {"value_black": thought.value if mover == 0 else -thought.value,
                "move": self.game.format_move(state, thought.action),
                "shares": shares, "targets": {str(a): c for a, c in board.targets.items()},
                "line": line, "line_movers": movers, "line_cells": cells, "visits": int(total)}


def _labels(tokens: list[str]) -> bool:
    """A line of column labels (A B C ..., a b c ..., 1 2 3 ...): single letters or numbers."""
    return bool(tokens) and all(len(t) == 1 and t.isalpha() for t in tokens)
