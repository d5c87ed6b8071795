"""What every game shares: the contract (`base`), compiling generic Numba code against a
game's kernels (`specialize`), array and random-number helpers, the stone-placing games'
board code (`stone_board`), perft and the command-line parsing of game parameters."""
