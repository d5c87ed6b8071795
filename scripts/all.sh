#!/usr/bin/env bash
# Every table in docs/performance.md, in one go (about 5 minutes on 2 cores). Run it on a quiet
# machine: the numbers are throughputs, and other processes take cores away.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
echo "## game cores: random playouts (one core)"
scripts/playouts.sh
echo "## Othello core next to the C reference (scripts/othello_ref.c)"
scripts/othello_vs_c.sh
for game in "connect4 rows=6 cols=7" "connect4 rows=12 cols=12 forbidden=[6,7]" "connect6 size=10" \
            "connect6 size=19" "othello rules=standard" "othello rules=course"; do
  set -- $game
  echo "## search and pure MCTS: $game"
  $PY -m alphazero.bench search game=$1 "${@:2}" seconds=2
  $PY -m alphazero.bench pure game=$1 "${@:2}" seconds=3
done
echo "## network, self-play and training: connect6 10x10"
$PY -m alphazero.bench network game=connect6 size=10
$PY -m alphazero.bench selfplay game=connect6 size=10
$PY -m alphazero.bench train game=connect6 size=10
