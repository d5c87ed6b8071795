"""Web board: `python -m alphazero.serve`. The Starlette app and its JSON endpoints (`app`),
one game in the page (`session`), what the page draws of a position (`board_view`) and marks
of its moves (`move_marks`), the page's words for each game (`game_texts`), a training run's
kept games (`replays`), the checkpoints it offers (`catalog`), and the page itself (`web/`)."""
