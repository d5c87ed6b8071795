"""Measuring strength: matches between players, the gate and the pure-MCTS ladder
(`match`, run by `python -m alphazero.evaluate`), any GTP program as an opponent (`gtp`)
and moves judged by exact solvers (`judges`)."""
