"""`python -m alphazero.evaluate game=NAME ...`: measure a network (alphazero.evaluate.match)."""
import sys

from alphazero.config.choices import check_group_choices
from alphazero.evaluate.match import main

check_group_choices(sys.argv[1:])
main()
