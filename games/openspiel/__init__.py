"""OpenSpiel's two-player board games (games.openspiel.rules), for `game=openspiel:NAME`."""
from games.openspiel.bots import OpenSpielMCTS
from games.openspiel.judge import OpenSpielConnectFourJudge
from games.openspiel.rules import OpenSpielGame

GAME = OpenSpielGame
ADVISORS: dict = {}
JUDGE = OpenSpielConnectFourJudge  # connect_four on classic Connect-4's stage sets
OPPONENTS = {"mcts": OpenSpielMCTS}  # evaluate's opponent=mcts:N, N simulations a move
