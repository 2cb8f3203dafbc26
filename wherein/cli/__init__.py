"""The `wherein` command (`python -m wherein.cli`): one module per group of commands."""

from wherein.cli.app import main

__all__ = ["main"]
