"""Tree search over many games at once: batched PUCT guided by a network (`puct`), UCT with
random rollouts (`pure_mcts`, the strength yardstick) and random openings (`openings`)."""
