"""Reading wherein's own usage ledger: every row for `baseline`, one session's for the status line.

The rows (`usage_ledger.UsageRow`) say which sessions used recall where a ledger cannot
(Codex rollouts, generic ledgers), joined by session id, and how much text recall returned
against the source it was drawn from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from wherein.meter.bounds import OutOfRange
from wherein.safe_files import UnsafeFile, open_regular
from wherein.usage_ledger import SEARCH_ACTION, UsageRow, parse_usage_row, usage_path

if TYPE_CHECKING:
    from wherein.meter.jsonl import ReadStats

__all__ = [
    "SEARCH_ACTION",
    "SESSION_TAIL_BYTES",
    "SessionRead",
    "UsageRow",
    "read_usage",
    "session_rows",
    "usage_path",
]

# A row is about 250 bytes: 64 MiB holds the last quarter of a million recall calls.
SESSION_TAIL_BYTES = 64 << 20
USAGE_FILE_MAX_BYTES = 4 << 30  # as every ledger (jsonl.LEDGER_FILE_MAX_BYTES)


def read_usage(path: Path, stats: ReadStats) -> list[UsageRow]:
    """Every well-formed row of `path` (none if nothing is there); bad rows are counted, as
    malformed or, a value out of range, as rejected. A link at `path` is not followed."""
    from wherein.meter.jsonl import iter_json_lines  # the status line needs none of it

    if not os.path.lexists(path):
        return []
    rows = []
    for line in iter_json_lines(path, stats):
        try:
            row = parse_usage_row(line)
        except OutOfRange as err:
            stats.note_rejected(path, err.reason)
            continue
        if row is None:
            stats.note_malformed(path)
            continue
        rows.append(row)
    return rows


class SessionRead(NamedTuple):
    """One session's rows found in a stretch of the ledger, and where the stretch ended."""

    rows: list[UsageRow]
    inode: int
    end: int  # the offset after the last whole line read: where the next read starts


def session_rows(
    path: Path,
    session: str,
    since: tuple[int, int] | None = None,
    tail_bytes: int = SESSION_TAIL_BYTES,
) -> SessionRead:
    """The well-formed rows of one session, found without parsing anyone else's.

    For the status line, which runs on every refresh: `since` is the (inode, end) of the last
    read, and only what the ledger gained after it is read; without it (or once the file was
    replaced or cut) the last `tail_bytes`, since a session's rows are recent: a ledger of
    years is never read whole. Rows are found by the bytes the tool writes for this session
    (`"session": "<id>"`, `usage_ledger.py`) before any line is parsed. A link, FIFO or
    unreadable file gives no rows.
    """
    needle = b'"session": ' + json.dumps(session, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )
    try:
        handle = open_regular(path, max_bytes=USAGE_FILE_MAX_BYTES)
    except UnsafeFile:
        return SessionRead([], 0, 0)
    if handle is None:
        return SessionRead([], 0, 0)
    with handle:
        info = os.fstat(handle.fileno())
        size = info.st_size
        if since is not None and since[0] == info.st_ino and since[1] <= size:
            start, cut = since[1], False
        else:
            start = max(0, size - tail_bytes)
            cut = start > 0  # the first line may be cut: it begins after the first newline
        handle.seek(start)
        data = handle.read(size - start)
    end = data.rfind(b"\n") + 1  # a line being appended is read next time
    data = data[:end]
    skip = data.find(b"\n") + 1 if cut else 0
    rows = []
    at = data.find(needle, skip)
    while at != -1:
        begin = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        try:
            row = parse_usage_row(json.loads(data[begin:stop]))
        except (ValueError, RecursionError, OutOfRange):  # not JSON, or out of range
            row = None
        if row is not None and row.session == session:
            rows.append(row)
        at = data.find(needle, stop)
    return SessionRead(rows, info.st_ino, start + end)
