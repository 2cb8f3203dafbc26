"""Reading JSONL ledgers one line at a time, counting what is malformed instead of failing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = ["ReadStats", "is_amount", "is_count", "iter_json_lines", "parse_time"]

_decode = json.JSONDecoder().decode


@dataclass
class ReadStats:
    """What reading the ledgers met: files, lines, and lines skipped and why."""

    files: int = 0
    lines: int = 0
    malformed: int = 0
    malformed_by_file: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    duplicate_lines: int = 0  # Claude: streamed copies of a response merged into one request
    repeated_events: int = 0  # Codex: token_count events that repeat the previous total

    def note_malformed(self, path: Path) -> None:
        """Count one malformed line of `path`."""
        self.malformed += 1
        key = str(path)
        self.malformed_by_file[key] = self.malformed_by_file.get(key, 0) + 1


def iter_json_lines(path: Path, stats: ReadStats) -> Iterator[Any]:
    """Yield each line of `path` decoded from JSON; bad lines are counted, never raised.

    The file is read line by line, so its size never has to fit in memory. A file that
    cannot be opened is recorded in `stats.unreadable` and yields nothing.
    """
    try:
        handle = path.open("rb")
    except OSError as err:
        stats.unreadable.append(f"{path}: {err.strerror or err}")
        return
    stats.files += 1
    with handle:
        for raw in handle:
            if not raw.strip():
                continue
            stats.lines += 1
            try:
                value = _decode(raw.decode("utf-8"))  # str, not bytes: skips encoding sniffing
            except ValueError:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
                stats.note_malformed(path)
                continue
            yield value


def parse_time(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string ('Z' or an offset; naive means UTC), else None."""
    if not isinstance(value, str) or not value:
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def is_count(value: Any) -> bool:
    """A token count: a non-negative int (JSON true/false are not counts)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_amount(value: Any) -> bool:
    """A stored cost: a non-negative number."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
