"""OpenSpiel's Connect Four judged on classic Connect-4's stage sets (games.core.connect4_stage_sets):
Pons' six sets of positions labelled by a perfect solver, played into OpenSpiel's game by
their columns, so that a network trained through the bridge is measured on the very
positions the native game's network is (`evaluate game=openspiel:connect_four
solver_positions=300 solver_kind=stages`). No other OpenSpiel game has a judge."""
from __future__ import annotations

from games.core.connect4_stage_sets import COLS, PUBLISHED_STAGE_CURVES, ROWS, load_stage_sets
from games.core.base import GameError


class OpenSpielConnectFourJudge:
    kinds = ("stages",)
    stage_references = PUBLISHED_STAGE_CURVES  # set beside a run's curve on the stage sets

    def __init__(self, game, kind: str):
        if game.spec.partition("(")[0].strip() != "connect_four" or \
                (game.height, game.width, game.num_actions) != (ROWS, COLS, COLS):
            raise GameError(f"of OpenSpiel's games only connect_four ({ROWS} rows, {COLS} "
                            f"columns) has a judge: classic Connect-4's stage sets.")

    def stage_sets(self, game, per_set: int):
        """The stage sets' positions in OpenSpiel's game: an action is a column there too."""
        return load_stage_sets(game, per_set)
