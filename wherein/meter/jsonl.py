"""Reading JSONL ledgers one line at a time, counting what is malformed instead of failing.

Ledgers and transcripts are read as control files are (see `wherein.safe_files`): never
through a symbolic link unless the user named the path, regular files only (a FIFO or a link
to `/dev/zero` is refused at the open, so it cannot hang or fill memory), and bounded: a file
above `LEDGER_FILE_MAX_BYTES` is skipped, and a line above `LINE_MAX_BYTES` is skipped and
rejected without ever being held whole. Real Claude Code transcripts reach hundreds of MB
with lines of a few MB (pasted images); both caps sit well above that.

A file is read up to the size it had when it was opened: an agent appending to it meanwhile
adds nothing to this read, so what was read is exactly what (path, size, mtime) describes and
can be cached under that key (`wherein.meter.parsecache`). Lines are decoded by msgspec, about
twice as fast as the standard library; a line msgspec refuses is decoded again by `json`, which
accepts `NaN`, `1e999` and lone surrogates, so every line means what it meant before (and the
bounds checks reject those values with their reasons). A reader may pass `keep`, a cheap test
on the raw bytes, to leave lines that cannot matter to it unparsed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
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
    "decode_line",
    "iter_json_lines",
    "parse_time",
]

LEDGER_FILE_MAX_BYTES = 4 << 30  # 4 GiB: ten times the largest real transcripts
LINE_MAX_BYTES = 32 << 20  # 32 MiB: several pasted images on one line
LINE_TOO_LONG = "a line longer than 32 MiB"
READ_BUFFER = 1 << 16  # eight times io's default: a third less time per line read
_SKIP_BLOCK = 1 << 20  # what is read at a time while skipping the rest of a long line

MAX_NOT_UNDERSTOOD_KINDS = 50  # distinct "not understood" reasons kept; the rest are pooled
OTHER_NOT_UNDERSTOOD = "other kinds"

_json_decode = json.JSONDecoder().decode
try:
    import msgspec

    _fast_decode: Callable[[bytes], Any] | None = msgspec.json.Decoder().decode
    _FAST_ERRORS: tuple[type[Exception], ...] = (msgspec.DecodeError, msgspec.ValidationError)
except ModuleNotFoundError:  # pragma: no cover - msgspec is a dependency; json still works
    _fast_decode, _FAST_ERRORS = None, ()


def decode_line(raw: bytes) -> Any:
    """One line decoded from JSON exactly as `json.loads` would, faster where it can be.

    Raises:
        ValueError: not JSON, or not UTF-8.
    """
    try:
        if _fast_decode is not None:
            try:
                return _fast_decode(raw)
            except _FAST_ERRORS:
                pass  # NaN, 1e999, a lone surrogate, or not JSON at all: json decides
        return _json_decode(raw.decode("utf-8"))  # str, not bytes: skips encoding sniffing
    except RecursionError:  # nested deeper than the parsers recurse: malformed like any other
        raise ValueError("nested too deeply") from None


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
    skipped_lines: int = 0  # left unparsed by the reader's `keep` test: they hold no request
    replayed_turns: int = 0  # Codex: turns a forked or resumed rollout copied from another
    not_understood: dict[str, int] = field(default_factory=dict)  # what -> lines

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

    def note_not_understood(self, what: str) -> None:
        """Count one line (or field) of a kind this reader does not know: a newer agent's."""
        kinds = self.not_understood
        if what not in kinds and len(kinds) >= MAX_NOT_UNDERSTOOD_KINDS:
            what = OTHER_NOT_UNDERSTOOD
        kinds[what] = kinds.get(what, 0) + 1

    def add(self, other: ReadStats) -> None:
        """Add what reading another file met (its line number is not kept)."""
        self.files += other.files
        self.lines += other.lines
        self.malformed += other.malformed
        for key, count in other.malformed_by_file.items():
            self.malformed_by_file[key] = self.malformed_by_file.get(key, 0) + count
        self.unreadable.extend(other.unreadable)
        self.duplicate_lines += other.duplicate_lines
        self.repeated_events += other.repeated_events
        self.rejected += other.rejected
        for reason, count in other.rejected_by_reason.items():
            self.rejected_by_reason[reason] = self.rejected_by_reason.get(reason, 0) + count
        for reason, where in other.first_rejected.items():
            self.first_rejected.setdefault(reason, where)
        self.skipped_lines += other.skipped_lines
        self.replayed_turns += other.replayed_turns
        kinds = self.not_understood
        for what, count in other.not_understood.items():
            if what not in kinds and len(kinds) >= MAX_NOT_UNDERSTOOD_KINDS:
                what = OTHER_NOT_UNDERSTOOD
            kinds[what] = kinds.get(what, 0) + count

    def not_understood_list(self) -> list[dict]:
        """`[{"what", "lines"}]`, the commonest first, for the report."""
        return [
            {"what": what, "lines": lines}
            for what, lines in sorted(self.not_understood.items(), key=lambda kv: (-kv[1], kv[0]))
        ]

    def rejected_list(self) -> list[dict]:
        """`[{"reason", "rows", "first"}]`, the commonest reason first, for the report."""
        return [
            {"reason": reason, "rows": rows, "first": self.first_rejected[reason]}
            for reason, rows in sorted(self.rejected_by_reason.items(), key=lambda kv: -kv[1])
        ]


def iter_json_lines(
    path: Path,
    stats: ReadStats,
    *,
    follow_links: bool = False,
    keep: Callable[[bytes], bool] | None = None,
    on_open: Callable[[os.stat_result], None] | None = None,
    raw: bool = False,
    decode: Callable[[bytes], Any] = decode_line,
) -> Iterator[Any]:
    """Yield each line of `path` decoded from JSON; bad lines are counted, never raised.

    The file is read line by line, so its size never has to fit in memory, and only up to the
    size it had when opened. A file that is missing, a link (unless `follow_links`: the user
    named it), not a regular file, too large or unreadable is recorded in `stats.unreadable`
    with the reason and yields nothing.

    Args:
        keep: a test on a line's raw bytes; a line failing it is counted in
            `stats.skipped_lines` and not parsed, unless it does not end in "}" (cut short,
            or not an object at all), which is parsed and counted as malformed as before.
        on_open: called with the `fstat` of the opened file, before any line is read.
        raw: yield (the line's bytes, its value) instead of the value alone.
        decode: what turns a line into its value (`decode_line`, or a reader's typed decoder
            that falls back to it); raises ValueError for a line that is not JSON.
    """
    try:
        handle = open_regular(
            path, max_bytes=LEDGER_FILE_MAX_BYTES, follow_links=follow_links, buffering=READ_BUFFER
        )
    except UnsafeFile as err:
        stats.unreadable.append(f"{path}: {err}")
        return
    if handle is None:
        stats.unreadable.append(f"{path}: it does not exist")
        return
    stats.files += 1
    with handle:
        info = os.fstat(handle.fileno())
        if on_open is not None:
            on_open(info)
        yield from _decoded_lines(handle, path, stats, info.st_size, keep, raw, decode)


_ENDS_AN_OBJECT = (b"}\n", b"}\r\n", b"}")


def _decoded_lines(
    handle: BinaryIO,
    path: Path,
    stats: ReadStats,
    size: int,
    keep: Callable[[bytes], bool] | None,
    pairs: bool,
    decode: Callable[[bytes], Any],
) -> Iterator[Any]:
    number = 0
    remaining = size  # what the file held when it was opened; appended lines wait for next time
    readline = handle.readline
    while remaining > 0:
        raw = readline(min(LINE_MAX_BYTES + 1, remaining))
        if not raw:
            return
        number += 1
        remaining -= len(raw)
        if len(raw) > LINE_MAX_BYTES and not raw.endswith(b"\n"):
            remaining -= _skip_line(handle, remaining)
            stats.lines += 1
            stats.line_number = number
            stats.note_rejected(path, LINE_TOO_LONG)
            continue
        if raw[:1].isspace() and not raw.strip():
            continue
        stats.lines += 1
        stats.line_number = number
        if keep is not None and not keep(raw) and raw.endswith(_ENDS_AN_OBJECT):
            stats.skipped_lines += 1
            continue
        try:
            value = decode(raw)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
            stats.note_malformed(path)
            continue
        yield (raw, value) if pairs else value


def _skip_line(handle: BinaryIO, limit: int) -> int:
    """Read past the end of the current line, at most `limit` bytes, without keeping it;
    returns the bytes read."""
    skipped = 0
    while skipped < limit:
        block = handle.readline(min(_SKIP_BLOCK, limit - skipped))
        skipped += len(block)
        if not block or block.endswith(b"\n"):
            break
    return skipped


def parse_time(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string, else None: not a time, or out of the range of
    `bounds.check_time` (history shows such a message undated)."""
    try:
        return check_time(value)
    except OutOfRange:
        return None
