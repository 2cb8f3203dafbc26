"""The usage meter: what recall returned in a session against what reading the files would cost.

`source_chars` counts the whole files the results came from, once per call: an upper bound on
what reading them instead would have cost. Token figures are chars/4 and say so. Each call also
appends one row to `$WHEREIN_HOME/usage.jsonl` for `wherein baseline` (`usage_ledger.py`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["UsageMeter"]

# The usual rule of thumb for English and code with BPE tokenizers; an estimate, labelled so.
CHARS_PER_TOKEN = 4


def _size(chars: int) -> str:
    if chars >= 1_000_000:
        return f"{chars / 1_000_000:.1f} MB"
    return f"{round(chars / 1000)} KB"


def _times(ratio: float) -> str:
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


class UsageMeter:
    """The counts for one session; shown only once the session has searched."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.calls = 0
        self.searches = 0
        self.returned_chars = 0
        self.source_chars = 0

    def record(self, action: str, returned_chars: int, source_chars: int, ok: bool = True) -> None:
        """Count one call; only answered searches move the figures the line shows."""
        self.calls += 1
        if action == "search" and ok:
            self.searches += 1
            self.returned_chars += returned_chars
            self.source_chars += source_chars

    @property
    def kept_out_chars(self) -> int:
        return max(0, self.source_chars - self.returned_chars)

    @property
    def ratio(self) -> float:
        return self.source_chars / self.returned_chars if self.returned_chars else 0.0

    def line(self) -> str:
        """`Recall 3 · 40x · 457 KB kept out (~117k tokens at chars/4)`, or "" before a search."""
        if not self.searches:
            return ""
        tokens = self.kept_out_chars // CHARS_PER_TOKEN
        kept = _size(self.kept_out_chars)
        return (
            f"Recall {self.searches} · {_times(self.ratio)} · {kept} kept out "
            f"(~{tokens / 1000:.1f}k tokens, estimated as chars/4)"
        )

    def to_json(self) -> dict[str, Any] | None:
        """The `usage` block of a result, or None for a session that never searched."""
        if not self.searches:
            return None
        return {
            "session": self.session,
            "calls": self.calls,
            "searches": self.searches,
            "returned_chars": self.returned_chars,
            "source_chars": self.source_chars,
            "kept_out_chars": self.kept_out_chars,
            "ratio": round(self.ratio, 2),
            "kept_out_tokens_estimate": self.kept_out_chars // CHARS_PER_TOKEN,
            "line": self.line(),
        }
