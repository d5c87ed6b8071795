#!/usr/bin/env bash
# Self-play on a GPU machine (docs/performance.md), in the order of what matters most if time
# runs out: the CUDA tests (graphed inference and the inference service answer as the CPU
# does; it stops if they fail), the network at changing batch sizes (scripts/batch_shapes.py), then for classic Connect-4 and Connect6 10x10 one process
# (workers=0, which also fills Numba's cache) and workers on one shared inference service (one
# per core but one) at 512 and 128 games per worker, each next to the bare network at the same
# batch. JSON lines go to $OUT/selfplay.jsonl, everything else to $OUT/log.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu_bench}
SECONDS_EACH=${SECONDS_EACH:-20}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
{ nvidia-smi -L; nproc; $PY -c "import torch, numba; print('torch', torch.__version__, 'numba', numba.__version__)"; } >> "$OUT/log.txt" 2>&1
timeout 120 $PY -m pytest -q -p no:cacheprovider tests/test_network.py tests/test_pool.py -k "cuda or service" \
  >> "$OUT/log.txt" 2>&1 || { echo "CUDA tests failed" >> "$OUT/log.txt"; cat "$OUT/log.txt"; exit 1; }
for game in "connect4 rows=6 cols=7" "connect6 size=10"; do
  set -- $game
  timeout 60 $PY scripts/batch_shapes.py game=$1 "${@:2}" batch=3600 seconds=3 >> "$OUT/selfplay.jsonl" 2>> "$OUT/log.txt"
done
for game in "connect4 rows=6 cols=7" "connect6 size=10"; do
  set -- $game
  timeout 120 $PY -m alphazero.bench selfplay game=$1 "${@:2}" workers=0 seconds=4 --json \
    >> "$OUT/selfplay.jsonl" 2>> "$OUT/log.txt" || echo "failed: $game workers=0" >> "$OUT/log.txt"
  for games in 512 128; do
    timeout 150 $PY -m alphazero.bench selfplay game=$1 "${@:2}" workers=auto trees=$games seconds=$SECONDS_EACH --json \
      >> "$OUT/selfplay.jsonl" 2>> "$OUT/log.txt" || echo "failed: $game workers=auto games=$games" >> "$OUT/log.txt"
  done
done
cat "$OUT/selfplay.jsonl"
