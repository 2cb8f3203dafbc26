"""A wait after each failure in a row: what is not asked again for a while.

A session keeps one model and one background fill, and an HTTP embedder one endpoint: after
a failure, asking again on every search made each search pay it again (a hung endpoint's
whole timeout). The wait doubles with each failure in a row, up to a ceiling.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass
class Backoff:
    """Failures in a row and the time.monotonic() before which nothing is tried again."""

    first_s: float
    ceiling_s: float
    misses: int = 0
    until: float = 0.0

    def miss(self) -> float:
        """Count a failure; the seconds until the next try."""
        self.misses += 1
        wait = min(self.first_s * 2 ** (self.misses - 1), self.ceiling_s)
        self.until = time.monotonic() + wait
        return wait

    def left(self) -> float:
        """Seconds still to wait; 0 when it may be tried."""
        return max(0.0, self.until - time.monotonic())

    def clear(self) -> None:
        """It worked (or no longer matters): the next failure waits the first wait again."""
        self.misses, self.until = 0, 0.0
