"""The agent that plays: a network's search plus the play-time advisors its game declares,
or pure MCTS; the one way every front end, match and gate builds a player."""
