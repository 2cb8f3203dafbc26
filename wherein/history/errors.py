"""History's errors, placed in the project's hierarchy (`wherein.errors`).

    IndexMissing
    └── HistoryMissing      no history index yet
    EmbedderError
    └── NoLocalEmbedder     neither the in-process model nor a loopback endpoint answered

A remote endpoint refused for history is a `ConfigError` (exit code 2), as for code.
"""

from __future__ import annotations

from wherein.errors import EmbedderError, IndexMissing

__all__ = ["HistoryMissing", "NoLocalEmbedder"]


class HistoryMissing(IndexMissing):
    """No history index has been built on this machine."""


class NoLocalEmbedder(EmbedderError):
    """No embedder on this machine answered; history has no other place to send text."""
