"""The generic JSONL ledger (`--ledger FILE`): one row per model call, from any harness.

Row keys: `time` (ISO-8601), `session`, `model`, `input_tokens` (uncached input),
`cache_read_tokens`, `cache_write_tokens` (billed at the 5-minute write rate),
`output_tokens`; optional `cache_write_1h_tokens` (1-hour writes, not part of
`cache_write_tokens`), `cost_usd` (used instead of the price table) and `project`.
A DeepSeek harness maps `prompt_cache_miss_tokens` to `input_tokens` and
`prompt_cache_hit_tokens` to `cache_read_tokens`, with no cache writes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from wherein.meter.bounds import OutOfRange, check_cost, check_count, check_time
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.parsed import KIND_GENERIC, NO_KEY, Merger, ParsedFile
from wherein.meter.table import SOURCE_GENERIC, Request, RequestTable

__all__ = ["REQUIRED_COUNTS", "parse_generic", "read_generic"]

REQUIRED_COUNTS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens")


def read_generic(path: Path, table: RequestTable, stats: ReadStats) -> None:
    """Add every well-formed row of `path` to `table` (see `parse_generic`)."""
    Merger(table, stats).merge(parse_generic(path))


def parse_generic(path: Path) -> ParsedFile:
    """Every well-formed row of `path`; the others counted as malformed, or as rejected when
    a value is out of range.

    `path` was named by the user (`--ledger`), so a link there is followed.
    """
    parsed = ParsedFile(KIND_GENERIC)
    stats, table = parsed.stats, parsed.table

    def opened(info: os.stat_result) -> None:
        parsed.signature = (info.st_size, info.st_mtime_ns, info.st_ino)

    for row in iter_json_lines(path, stats, follow_links=True, on_open=opened):
        try:
            request = _request(row, path)
        except OutOfRange as err:
            stats.note_rejected(path, err.reason)
            continue
        if request is None:
            stats.note_malformed(path)
            continue
        table.add(request)
        parsed.keys.append(NO_KEY)
        parsed.sidechain.append(0)
    return parsed


def _request(row: Any, path: Path) -> Request | None:
    if not isinstance(row, dict):
        return None
    when = check_time(row.get("time"))
    session, model = row.get("session"), row.get("model")
    if when is None or not _is_text(session) or not _is_text(model):
        return None
    counts = [row.get(key) for key in REQUIRED_COUNTS]
    one_hour = row.get("cache_write_1h_tokens", 0)
    if not all(check_count(c) for c in (*counts, one_hour)):
        return None
    cost = row.get("cost_usd")
    if cost is not None and not check_cost(cost):
        return None
    project = row.get("project")
    input_tokens, cache_read, cache_write, output = counts
    return Request(
        time=when,
        session=session,
        model=model,
        project=project if _is_text(project) else path.name,
        input=input_tokens,
        cache_read=cache_read,
        cache_write_5m=cache_write,
        cache_write_1h=one_hour,
        output=output,
        stored_cost=None if cost is None else float(cost),
        source=SOURCE_GENERIC,
    )


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
