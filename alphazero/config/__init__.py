"""Configuration: the errors a bad setting raises (`errors`, importing nothing of the
stack), checking the Hydra tree and turning it into settings (`settings`), the games a user
picks by name (`presets`, `choices`), composing a tree (`compose`, cached) and starting a
command with it (`command`), where the config tree, shipped networks and caches are
(`paths`), devices (`devices`) and torch's threads (`threads`)."""
