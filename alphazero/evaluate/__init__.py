"""Measuring strength: matches between players, the gate and the pure-MCTS ladder (`match`,
their rows as text in `table`), any GTP program as an opponent (`gtp`), moves judged by exact
solvers (`judges`), round robins rated in Elo (`elo`); the `python -m alphazero.evaluate`
command itself (`command`)."""
