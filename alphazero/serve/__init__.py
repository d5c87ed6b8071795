"""Web board: `python -m alphazero.serve`. The Starlette app and its JSON endpoints (`app`),
one game in the page (`session`), what the page draws of a position (`board_view`), the
checkpoints it offers (`catalog`), and the page itself (`web/`)."""
