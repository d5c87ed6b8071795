"""Gomoku (free-style five in a row, 5x5 to 19x19): its rules (`rules`)."""
from games.gomoku.rules import Gomoku

GAME = Gomoku
ADVISORS = {}  # no play-time help of its own (games.core.advice)
