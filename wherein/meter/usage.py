"""wherein's own usage rows: one line per recall call in `$WHEREIN_HOME/usage.jsonl`.

The agent tool appends `{"time", "session", "workspace", "action", "results",
"returned_chars", "source_chars", "paths_hash"}` per call. They say which sessions used
recall where a ledger cannot (Codex rollouts, generic ledgers), joined by session id, and
how much text recall returned against the source it was drawn from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wherein.index.location import data_home
from wherein.meter.bounds import OutOfRange, check_count, check_time
from wherein.meter.jsonl import ReadStats, iter_json_lines

__all__ = ["SEARCH_ACTION", "UsageRow", "read_usage", "usage_path"]

USAGE_FILE_NAME = "usage.jsonl"
SEARCH_ACTION = "search"  # the action that puts excerpts in the model's context


@dataclass(frozen=True)
class UsageRow:
    """One recall call as the tool logged it."""

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
