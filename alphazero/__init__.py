"""AlphaZero pipeline: search, networks, agents, self-play, training and evaluation, in
sub-packages by layer (docs/design.md); the modules at this level are the commands."""
