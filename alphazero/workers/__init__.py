"""Self-play: one worker's concurrent games (`selfplay`), the pool of worker processes
(`pool`) or Ray actors (`ray_pool`), and the GPU's shared inference service."""
