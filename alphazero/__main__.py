"""`python -m alphazero`: every command in one list, what each does and how it is started
(each answers `--help` with its main settings)."""
from alphazero.config.command_line import USAGES

print("commands (each takes --help; every setting: docs/settings.md):")
for name, usage in USAGES.items():
    print(f"\n  {usage.synopsis}\n      {usage.does}")
