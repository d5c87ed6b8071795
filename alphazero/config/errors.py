"""The error every bad setting raises. It imports nothing of the stack, so any module may
raise or catch it without loading the search, the networks or training."""


class ConfigError(ValueError):
    """A config value out of range; the message is one sentence naming it."""
