#!/usr/bin/env bash
# Self-play on a GPU machine (docs/performance.md): for Connect6 10x10 and classic Connect-4,
# one worker in one process, then workers on one shared inference service (one per core but
# one), each next to the bare network at the same batch. JSON lines go to $OUT/selfplay.jsonl.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu_bench}
SECONDS_EACH=${SECONDS_EACH:-20}
mkdir -p "$OUT"
{ nvidia-smi -L; nproc; $PY -c "import torch, numba; print('torch', torch.__version__, 'numba', numba.__version__)"; } > "$OUT/device.txt" 2>&1
for game in "connect6 size=10" "connect4 rows=6 cols=7"; do
  set -- $game
  for workers in 0 auto; do
    timeout 240 $PY -m alphazero.bench selfplay game=$1 "${@:2}" workers=$workers seconds=$SECONDS_EACH --json \
      >> "$OUT/selfplay.jsonl" 2>> "$OUT/stderr.txt" || echo "failed: $game workers=$workers" >> "$OUT/stderr.txt"
  done
done
$PY -m alphazero.bench network game=connect6 size=10 batch=128 seconds=2 --json >> "$OUT/network.jsonl" 2>> "$OUT/stderr.txt"
cat "$OUT"/*.jsonl "$OUT/device.txt"
