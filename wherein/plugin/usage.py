"""The usage meter: what recall returned in a session against what reading the files would cost.

`source_chars` counts the whole files the results came from, once per call: an upper bound on
what reading them instead would have cost. Token figures are chars/4 and say so. Each call also
appends one row to `$WHEREIN_HOME/usage.jsonl` for `wherein baseline`: counts, a hash of the
result paths, the workspace, the session id and the time; never the query or any code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wherein.index.location import data_home

__all__ = [
    "USAGE_FILE_NAME",
    "UsageMeter",
    "UsageRow",
    "append_usage_row",
    "paths_hash",
    "usage_path",
]

logger = logging.getLogger(__name__)

USAGE_FILE_NAME = "usage.jsonl"
# The usual rule of thumb for English and code with BPE tokenizers; an estimate, labelled so.
CHARS_PER_TOKEN = 4
# Only the user reads the ledger: it names workspaces.
USAGE_FILE_MODE = 0o600


def usage_path(environ: Mapping[str, str] | None = None) -> Path:
    return data_home(environ) / USAGE_FILE_NAME


def paths_hash(paths: Iterable[str]) -> str:
    """sha256 of the sorted distinct result paths, one per line; "" when there are none."""
    distinct = sorted(set(paths))
    if not distinct:
        return ""
    return hashlib.sha256("\n".join(distinct).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class UsageRow:
    """One line of usage.jsonl; the keys are a contract with `wherein baseline`."""

    time: str
    session: str
    workspace: str
    action: str
    results: int
    returned_chars: int
    source_chars: int
    paths_hash: str

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "session": self.session,
            "workspace": self.workspace,
            "action": self.action,
            "results": self.results,
            "returned_chars": self.returned_chars,
            "source_chars": self.source_chars,
            "paths_hash": self.paths_hash,
        }


def utc_now() -> str:
    """ISO-8601 UTC with an explicit offset, which `datetime.fromisoformat` reads on 3.10."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def append_usage_row(row: UsageRow, path: Path | None = None) -> bool:
    """Append `row` as one line with one O_APPEND write, so concurrent servers never interleave.

    A ledger that cannot be written must not fail the agent's call: it is logged to stderr and
    False is returned.
    """
    target = usage_path() if path is None else path
    data = (json.dumps(row.to_json(), ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, USAGE_FILE_MODE)
        try:
            written = os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as err:
        logger.warning("Cannot append to the usage ledger %s: %s", target, err)
        return False
    if written != len(data):
        logger.warning(
            "Short write to the usage ledger %s: %d of %d bytes", target, written, len(data)
        )
        return False
    return True


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
