"""Othello, the course variant and classic: its rules (`rules`) and the exact endgame
solver (`solver`)."""
from games.othello.rules import Othello

GAME = Othello
