"""Training: the loop that ties self-play, the replay buffer, the trainer and the gate
together (`loop`, run by `python -m alphazero.train`), the loss and optimizer step
(`trainer`), the replay buffer (`replay`), data-parallel training (`distributed`) and the
run's kept self-play games (`game_log`)."""
