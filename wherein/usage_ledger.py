"""The usage ledger's contract: one line per recall call in `$WHEREIN_HOME/usage.jsonl`.

The agent tool (`plugin/tool.py`) appends a row per call; `wherein baseline` and
`wherein statusline` (`meter/usage.py`) read them back. Both go through `UsageRow`: its
`to_json` is what is written, `parse_usage_row` what is accepted, so the two cannot drift.
A row holds counts, a hash of the result paths, the workspace, the session id and the time;
never the query or any code.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import stat
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from wherein.index.location import data_home
from wherein.meter.bounds import check_count, check_time

__all__ = [
    "SEARCH_ACTION",
    "USAGE_FILE_NAME",
    "UsageRow",
    "append_usage_row",
    "parse_usage_row",
    "paths_hash",
    "usage_path",
]

logger = logging.getLogger(__name__)

USAGE_FILE_NAME = "usage.jsonl"
SEARCH_ACTION = "search"  # the action that puts excerpts in the model's context
# Only the user reads the ledger: it names workspaces.
USAGE_FILE_MODE = 0o600
APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK


class UsageRow(NamedTuple):
    """One recall call; the JSON keys are a contract with `wherein baseline` (docs/contracts.md).

    A NamedTuple: `wherein statusline` reads these on every refresh and does without
    dataclasses' import. `time` is epoch seconds, written as ISO-8601 UTC to the millisecond.
    """

    time: float
    session: str
    workspace: str
    action: str
    results: int
    returned_chars: int
    source_chars: int
    paths_hash: str = ""  # rows written before the hash existed have none

    def to_json(self) -> dict[str, Any]:
        """The row as one line of usage.jsonl holds it."""
        when = datetime.fromtimestamp(self.time, timezone.utc)
        return {
            "time": when.isoformat(timespec="milliseconds"),
            "session": self.session,
            "workspace": self.workspace,
            "action": self.action,
            "results": self.results,
            "returned_chars": self.returned_chars,
            "source_chars": self.source_chars,
            "paths_hash": self.paths_hash,
        }


def usage_path(environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/usage.jsonl`, where the agent tool appends its rows."""
    return data_home(environ) / USAGE_FILE_NAME


def paths_hash(paths: Iterable[str]) -> str:
    """sha256 of the sorted distinct result paths, one per line; "" when there are none."""
    distinct = sorted(set(paths))
    if not distinct:
        return ""
    return hashlib.sha256("\n".join(distinct).encode("utf-8", "surrogatepass")).hexdigest()


def parse_usage_row(line: object) -> UsageRow | None:
    """The row one parsed JSON line holds, or None when it is not a well-formed row.

    Raises:
        OutOfRange: a time or count outside what any real row holds.
    """
    if not isinstance(line, dict):
        return None
    when = check_time(line.get("time"))
    session, action = line.get("session"), line.get("action")
    workspace = line.get("workspace", "")
    results, returned = line.get("results"), line.get("returned_chars")
    source, hashed = line.get("source_chars"), line.get("paths_hash", "")
    if when is None or not isinstance(session, str) or not session:
        return None
    if not isinstance(action, str) or not isinstance(workspace, str):
        return None
    if not (check_count(results) and check_count(returned) and check_count(source)):
        return None
    if not isinstance(hashed, str):  # only a join key: the counts still stand
        hashed = ""
    return UsageRow(when, session, workspace, action, results, returned, source, hashed)


def append_usage_row(row: UsageRow, path: Path | None = None) -> bool:
    """Append `row` as one line with one O_APPEND write, so concurrent servers never interleave.

    A ledger that cannot be written must not fail the agent's call: it is logged to stderr and
    False is returned.
    """
    target = usage_path() if path is None else path
    data = (json.dumps(row.to_json(), ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Not through a link, and never waiting on a FIFO (O_NONBLOCK fails its open with no
        # reader): whatever is planted at the name is refused, and the fstat of what was
        # opened refuses a device.
        fd = os.open(target, APPEND_FLAGS, USAGE_FILE_MODE)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
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
