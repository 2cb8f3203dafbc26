"""wherein's own usage rows: one line per recall call in `$WHEREIN_HOME/usage.jsonl`.

The agent tool appends `{"time", "session", "workspace", "action", "results",
"returned_chars", "source_chars", "paths_hash"}` per call. They say which sessions used
recall where a ledger cannot (Codex rollouts, generic ledgers), joined by session id, and
how much text recall returned against the source it was drawn from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from wherein.index.location import data_home
from wherein.meter.bounds import OutOfRange, check_count, check_time
from wherein.safe_files import UnsafeFile, open_regular

if TYPE_CHECKING:
    from wherein.meter.jsonl import ReadStats

__all__ = [
    "SEARCH_ACTION",
    "SESSION_TAIL_BYTES",
    "UsageRow",
    "read_usage",
    "session_rows",
    "usage_path",
]

USAGE_FILE_NAME = "usage.jsonl"
SEARCH_ACTION = "search"  # the action that puts excerpts in the model's context
# A row is about 250 bytes: 64 MiB holds the last quarter of a million recall calls.
SESSION_TAIL_BYTES = 64 << 20
USAGE_FILE_MAX_BYTES = 4 << 30  # as every ledger (jsonl.LEDGER_FILE_MAX_BYTES)


class UsageRow(NamedTuple):
    """One recall call as the tool logged it (a NamedTuple: `wherein statusline` reads these
    on every refresh and does without dataclasses' import)."""

    time: float
    session: str
    workspace: str
    action: str
    results: int
    returned_chars: int
    source_chars: int


def usage_path(environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/usage.jsonl`, where the agent tool appends its rows."""
    return data_home(environ) / USAGE_FILE_NAME


def read_usage(path: Path, stats: ReadStats) -> list[UsageRow]:
    """Every well-formed row of `path` (none if nothing is there); bad rows are counted, as
    malformed or, a value out of range, as rejected. A link at `path` is not followed."""
    from wherein.meter.jsonl import iter_json_lines  # the status line needs none of it

    if not os.path.lexists(path):
        return []
    rows = []
    for line in iter_json_lines(path, stats):
        try:
            row = _row(line)
        except OutOfRange as err:
            stats.note_rejected(path, err.reason)
            continue
        if row is None:
            stats.note_malformed(path)
            continue
        rows.append(row)
    return rows


def session_rows(path: Path, session: str, tail_bytes: int = SESSION_TAIL_BYTES) -> list[UsageRow]:
    """The well-formed rows of one session, read from the last `tail_bytes` of `path` only.

    For the status line, which runs on every refresh: the rows are found by the bytes the
    tool writes for this session (`"session": "<id>"`, `plugin/usage.py`) before any line is
    parsed, and a session's rows are recent, so a ledger of years is never read whole. A
    link, FIFO or unreadable file gives no rows.
    """
    needle = b'"session": ' + json.dumps(session, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )
    try:
        handle = open_regular(path, max_bytes=USAGE_FILE_MAX_BYTES)
    except UnsafeFile:
        return []
    if handle is None:
        return []
    with handle:
        size = os.fstat(handle.fileno()).st_size
        start = max(0, size - tail_bytes)
        handle.seek(start)
        data = handle.read(size - start)
    if start:  # the first line may be cut: it begins after the first newline
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    rows = []
    at = data.find(needle)
    while at != -1:
        begin = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        try:
            row = _row(json.loads(data[begin:end]))
        except (ValueError, OutOfRange):  # not JSON, or a value out of range
            row = None
        if row is not None and row.session == session:
            rows.append(row)
        at = data.find(needle, end)
    return rows


def _row(line: object) -> UsageRow | None:
    if not isinstance(line, dict):
        return None
    when = check_time(line.get("time"))
    session, action = line.get("session"), line.get("action")
    workspace = line.get("workspace", "")
    results, returned = line.get("results"), line.get("returned_chars")
    source = line.get("source_chars")
    if when is None or not isinstance(session, str) or not session:
        return None
    if not isinstance(action, str) or not isinstance(workspace, str):
        return None
    if not (check_count(results) and check_count(returned) and check_count(source)):
        return None
    return UsageRow(when, session, workspace, action, results, returned, source)
