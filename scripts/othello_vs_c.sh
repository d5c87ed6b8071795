#!/usr/bin/env bash
# Othello random playouts: the Numba core next to scripts/othello_ref.c, alternating 2-second runs
# (three of each per rule set) so that a shared machine's drift hits both alike.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
REF=$(mktemp)
gcc -O3 -march=native -o "$REF" scripts/othello_ref.c
for rules in standard course; do
  for _ in 1 2 3; do
    $PY -m games playouts othello rules=$rules 2
    "$REF" 2 $rules
  done
done | $PY -c "
import json, sys
rows = [json.loads(line) for line in sys.stdin]
for rules in ('standard', 'course'):
    core = [r['playouts_per_s'] for r in rows if r.get('params', {}).get('rules') == rules]
    ref = [r['playouts_per_s'] for r in rows if r.get('rules') == rules]
    print(json.dumps({'rules': rules, 'numba_playouts_per_s': round(sum(core) / len(core)),
                      'c_playouts_per_s': round(sum(ref) / len(ref)),
                      'share_of_c': round(sum(core) / sum(ref), 3)}))
"
rm -f "$REF"
