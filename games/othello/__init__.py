"""Othello, the course variant and classic: its rules (`rules`), their move generation on
bitboards (`bitboard`) and the exact endgame solver (`solver`)."""
from games.othello.rules import Othello
from games.othello.advisors import ExactEndgame

GAME = Othello
ADVISORS = {ExactEndgame.name: ExactEndgame}  # play-time help for the agent (games.core.advice)
