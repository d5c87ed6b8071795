"""`python -m alphazero.evaluate game=NAME ...`: measure a network (alphazero.evaluate.command)."""
import sys

from alphazero.config.command_line import check_command_line

check_command_line("evaluate", "evaluate", sys.argv[1:])  # before the imports of torch: --help is quick

from alphazero.evaluate.command import main  # noqa: E402

main(sys.argv[1:])
