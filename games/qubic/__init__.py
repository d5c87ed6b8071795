"""Qubic, 4x4x4 tic-tac-toe: the worked example of a game written in plain Python
(games.core.python_game, docs/adding_a_game.md)."""
from games.qubic.rules import Qubic

GAME = Qubic
ADVISORS: dict = {}
