"""Connect6: its rules (`rules`) and the threat search that names the cells a turn must
take (`threats`)."""
from games.connect6.rules import Connect6

GAME = Connect6
