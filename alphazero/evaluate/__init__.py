"""Measuring strength: matches between players, the gate and the pure-MCTS ladder
(`match`, run by `python -m alphazero.evaluate`) and moves judged by exact solvers
(`judges`)."""
