"""The self-play search a run has spent so far, read from its counters and config (a
checkpoint's or a snapshot's), to set runs beside each other and beside published ones.

Simulations are counted as played: with playout cap randomisation (`selfplay.full_search_share`
below 1) only the fully searched moves are recorded, so the plies played are the recorded
positions over that share, and each ply searched either `mcts.simulations` or
`selfplay.fast_simulations` times.
"""
from __future__ import annotations


def selfplay_search(config: dict, counters: dict) -> dict:
    """{'plies', 'simulations_per_ply', 'simulations'} of the run's self-play so far."""
    selfplay, simulations = config["selfplay"], config["mcts"]["simulations"]
    share = selfplay.get("full_search_share", 1.0)  # runs before playout caps searched every move
    plies = counters["positions"] / share
    per_ply = share * simulations + (1 - share) * selfplay.get("fast_simulations", 0)
    return {"plies": plies, "simulations_per_ply": per_ply, "simulations": plies * per_ply}
