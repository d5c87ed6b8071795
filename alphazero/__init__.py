"""AlphaZero pipeline: search, networks, replay, training and evaluation (see DESIGN.md)."""
