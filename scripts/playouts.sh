#!/usr/bin/env bash
# The README's game-core table: random playouts/s per game, with the first call's time from
# an empty Numba cache (compilation) and from a warm one (cached start-up).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
for game in "connect4 rows=6 cols=7" "connect4 rows=12 cols=12 forbidden=[6,7]" "connect6 size=10" \
            "connect6 size=19" "othello rules=standard" "othello rules=course"; do
  cold=$(mktemp -d)
  compile=$(NUMBA_CACHE_DIR="$cold" $PY -m games playouts $game 0 | $PY -c "import json,sys; print(json.load(sys.stdin)['first_call_s'])")
  rm -rf "$cold"
  $PY -m games playouts $game 3 | $PY -c "import json,sys; r=json.load(sys.stdin); print(json.dumps({**r, 'compile_s': $compile}))"
done
