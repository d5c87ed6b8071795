"""Web board: `python -m alphazero.serve`. The Starlette app and its JSON endpoints (`app`),
one game in the page (`session`), what the page draws of a position (`board_view`) and marks
of its moves (`move_marks`), the set-up form's fields for a game's parameters (`game_form`), a training run's
kept games (`replays`), the checkpoints it offers (`catalog`), and the page itself (`web/`)."""
