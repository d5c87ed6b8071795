"""OpenSpiel's two-player board games (games.openspiel.rules), for `game=openspiel:NAME`."""
from games.openspiel.rules import OpenSpielGame

GAME = OpenSpielGame
ADVISORS: dict = {}
