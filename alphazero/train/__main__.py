"""`python -m alphazero.train game=NAME ...`: train a network (alphazero.train.loop)."""
import sys

from alphazero.config.command_line import check_command_line

check_command_line("train", "config", sys.argv[1:])  # before the imports of torch: --help is quick

from alphazero.train.loop import main  # noqa: E402

main(sys.argv[1:])
