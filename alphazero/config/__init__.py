"""Configuration: the errors a bad setting raises (`errors`, importing nothing of the
stack), checking the Hydra tree and turning it into settings (`settings`), the games a user
picks by name (`presets`, `choices`), where the config tree and shipped networks are
(`paths`) and torch's threads (`threads`)."""
