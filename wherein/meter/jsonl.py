"""Reading JSONL ledgers one line at a time, counting what is malformed instead of failing.

Ledgers and transcripts are read as control files are (see `wherein.safe_files`): never
through a symbolic link unless the user named the path, regular files only (a FIFO or a link
to `/dev/zero` is refused at the open, so it cannot hang or fill memory), and bounded: a file
above `LEDGER_FILE_MAX_BYTES` is skipped, and a line above `LINE_MAX_BYTES` is skipped and
rejected without ever being held whole. Real Claude Code transcripts reach hundreds of MB
with lines of a few MB (pasted images); both caps sit well above that.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from wherein.meter.bounds import OutOfRange, check_time
from wherein.safe_files import UnsafeFile, open_regular

__all__ = [
    "LEDGER_FILE_MAX_BYTES",
    "LINE_MAX_BYTES",
    "LINE_TOO_LONG",
    "ReadStats",
    "iter_json_lines",
    "parse_time",
]

LEDGER_FILE_MAX_BYTES = 4 << 30  # 4 GiB: ten times the largest real transcripts
LINE_MAX_BYTES = 32 << 20  # 32 MiB: several pasted images on one line
LINE_TOO_LONG = "a line longer than 32 MiB"
_SKIP_BLOCK = 1 << 20  # what is read at a time while skipping the rest of a long line

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
    rejected: int = 0  # rows with a value out of range (see bounds.py)
    rejected_by_reason: dict[str, int] = field(default_factory=dict)
    first_rejected: dict[str, str] = field(default_factory=dict)  # reason -> "<file> line <n>"
    line_number: int = 0  # of the line `iter_json_lines` yielded last, in its file

    def note_malformed(self, path: Path) -> None:
        """Count one malformed line of `path`."""
        self.malformed += 1
        key = str(path)
        self.malformed_by_file[key] = self.malformed_by_file.get(key, 0) + 1

    def note_rejected(self, path: Path, reason: str) -> None:
        """Count one row of `path` rejected for `reason`, at the line last yielded."""
        self.rejected += 1
        self.rejected_by_reason[reason] = self.rejected_by_reason.get(reason, 0) + 1
        self.first_rejected.setdefault(reason, f"{path} line {self.line_number}")

    def rejected_list(self) -> list[dict]:
        """`[{"reason", "rows", "first"}]`, the commonest reason first, for the report."""
        return [
            {"reason": reason, "rows": rows, "first": self.first_rejected[reason]}
            for reason, rows in sorted(self.rejected_by_reason.items(), key=lambda kv: -kv[1])
        ]


def iter_json_lines(path: Path, stats: ReadStats, *, follow_links: bool = False) -> Iterator[Any]:
    """Yield each line of `path` decoded from JSON; bad lines are counted, never raised.

    The file is read line by line, so its size never has to fit in memory. A file that is
    missing, a link (unless `follow_links`: the user named it), not a regular file, too large
    or unreadable is recorded in `stats.unreadable` with the reason and yields nothing.
    """
    try:
        handle = open_regular(path, max_bytes=LEDGER_FILE_MAX_BYTES, follow_links=follow_links)
    except UnsafeFile as err:
        stats.unreadable.append(f"{path}: {err}")
        return
    if handle is None:
        stats.unreadable.append(f"{path}: it does not exist")
        return
    stats.files += 1
    with handle:
        yield from _decoded_lines(handle, path, stats)


def _decoded_lines(handle: BinaryIO, path: Path, stats: ReadStats) -> Iterator[Any]:
    number = 0
    budget = LEDGER_FILE_MAX_BYTES  # a file growing while it is read stops at the cap
    while True:
        raw = handle.readline(LINE_MAX_BYTES + 1)
        if not raw:
            return
        number += 1
        budget -= len(raw)
        too_long = len(raw) > LINE_MAX_BYTES and not raw.endswith(b"\n")
        if too_long:
            budget -= _skip_line(handle)
        if budget < 0:
            stats.unreadable.append(
                f"{path}: it grew past {LEDGER_FILE_MAX_BYTES:,} bytes while it was read; "
                f"lines after {number - 1:,} were not read"
            )
            return
        if too_long:
            stats.lines += 1
            stats.line_number = number
            stats.note_rejected(path, LINE_TOO_LONG)
            continue
        if not raw.strip():
            continue
        stats.lines += 1
        stats.line_number = number
        try:
            value = _decode(raw.decode("utf-8"))  # str, not bytes: skips encoding sniffing
        except ValueError:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
            stats.note_malformed(path)
            continue
        yield value


def _skip_line(handle: BinaryIO) -> int:
    """Read past the end of the current line without keeping it; returns the bytes read."""
    skipped = 0
    while True:
        block = handle.readline(_SKIP_BLOCK)
        skipped += len(block)
        if not block or block.endswith(b"\n"):
            return skipped


def parse_time(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string, else None: not a time, or out of the range of
    `bounds.check_time` (history shows such a message undated)."""
    try:
        return check_time(value)
    except OutOfRange:
        return None
