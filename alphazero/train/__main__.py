"""`python -m alphazero.train game=NAME ...`: train a network (alphazero.train.loop)."""
import sys

from alphazero.config.choices import check_group_choices
from alphazero.train.loop import main

check_group_choices(sys.argv[1:])
main()
