"""Othello, the course variant and classic: its rules (`rules`), their move generation on
bitboards (`bitboard`) and the exact endgame solver (`solver`)."""
from games.othello.rules import Othello
from games.othello.advisors import ExactEndgame
from games.othello.judge import OthelloJudge

GAME = Othello
ADVISORS = {ExactEndgame.name: ExactEndgame}  # play-time help for the agent (games.core.advice)
JUDGE = OthelloJudge  # the exact judge of moves (alphazero.evaluate.judges)
