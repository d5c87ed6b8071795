"""OpenSpiel's two-player board games (games.openspiel.rules), for `game=openspiel:NAME`."""
from games.openspiel.bots import OpenSpielMCTS
from games.openspiel.rules import OpenSpielGame

GAME = OpenSpielGame
ADVISORS: dict = {}
OPPONENTS = {"mcts": OpenSpielMCTS}  # evaluate's opponent=mcts:N, N simulations a move
