"""Gravity Connect-4 (course boards of 9-12 rows and columns with a forbidden cell, and
classic 6x7): its rules (`rules`) and the exact solver of classic boards (`solver`, its
bitboard search in `bitboard_search`)."""
from games.connect4.rules import Connect4
from games.connect4.advisors import ProvenOutcomes
from games.connect4.judge import Connect4Judge

GAME = Connect4
ADVISORS = {ProvenOutcomes.name: ProvenOutcomes}  # play-time help for the agent (games.core.advice)
JUDGE = Connect4Judge  # the exact judge of moves (alphazero.evaluate.judges)
