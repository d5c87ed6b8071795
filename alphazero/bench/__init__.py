"""Speed benchmarks, `python -m alphazero.bench search|pure|network|selfplay|train|engines`:
the search, network, self-play and training timings (`speeds`) and engine start-up and
move times (`engines`)."""
