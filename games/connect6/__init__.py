"""Connect6: its rules (`rules`) and the threat search that names the cells a turn must
take (`threats`)."""
from games.connect6.rules import Connect6
from games.connect6.advisors import ForcedCells

GAME = Connect6
ADVISORS = {ForcedCells.name: ForcedCells}  # play-time help for the agent (games.core.advice)
