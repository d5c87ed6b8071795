"""`python -m alphazero.bench KIND ...`: speed benchmarks (alphazero.bench.speeds)."""
import sys

from alphazero.bench.speeds import main

sys.exit(main(sys.argv[1:]))
