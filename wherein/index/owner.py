"""Which workspace an index belongs to, and when it was last used: `workspace.json` beside it.

An index directory is named by a hash of its workspace's path, which cannot be read back, so
without a record `wherein indexes` could not say whose index it is or whether that folder is
still there. The record is written once, when a search or `wherein index` first holds the
directory; its mtime is "last used", moved at most once a minute, so a warm search pays one
`lstat` for it.

The file lies under the user's own data home, but it is read like anything there: bounded,
without following a link, and believed only when the path it names hashes to the directory's
own name (`workspace_digest`).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from wherein.index.location import workspace_digest
from wherein.safe_files import UnsafeFile, read_regular, write_atomic

__all__ = ["OWNER_FILE_NAME", "Owner", "mark_used", "names_directory", "read_owner"]

OWNER_FILE_NAME = "workspace.json"
OWNER_FORMAT = 1
# A path and a format number: a few hundred bytes. More is not a record of ours.
MAX_OWNER_BYTES = 64 << 10
# "Last used" is for people deciding what to remove: a minute is precise enough, and it keeps
# the write off nearly every search.
TOUCH_EVERY_S = 60.0


@dataclass(frozen=True)
class Owner:
    """What the record says: the workspace path (None when absent or not believed) and when
    the index was last used (the record's mtime, None without one)."""

    workspace: str | None
    last_used: float | None


def mark_used(directory: Path, workspace: Path) -> None:
    """Record `workspace` as the index's owner if no record exists, else move "last used".

    Never raises: a read-only or full data home must not cost a search its answer. Anything
    but a regular file at the record's name is left alone (the listing calls it unknown).
    """
    path = directory / OWNER_FILE_NAME
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        payload = {"format": OWNER_FORMAT, "workspace": str(workspace.resolve())}
        with contextlib.suppress(OSError, ValueError, UnsafeFile):
            write_atomic(path, json.dumps(payload).encode("ascii"))
        return
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and time.time() - info.st_mtime >= TOUCH_EVERY_S:
        with contextlib.suppress(OSError):
            os.utime(path, follow_symlinks=False)


def read_owner(directory: Path) -> Owner:
    """The record of the index in `directory`; a missing, damaged or foreign one names no
    workspace (an index from before records existed has none)."""
    path = directory / OWNER_FILE_NAME
    try:
        data = read_regular(path, max_bytes=MAX_OWNER_BYTES)
        if data is None:
            return Owner(None, None)
        last_used = os.lstat(path).st_mtime
    except (UnsafeFile, OSError):
        return Owner(None, None)
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):
        return Owner(None, last_used)
    workspace = payload.get("workspace") if isinstance(payload, dict) else None
    if not isinstance(workspace, str) or not names_directory(workspace, directory):
        return Owner(None, last_used)
    return Owner(workspace, last_used)


def names_directory(workspace: str, directory: Path) -> bool:
    """Whether `workspace` (a resolved absolute path) is the one `directory` was named for."""
    if not os.path.isabs(workspace) or "\0" in workspace:
        return False
    return directory.name.endswith("-" + workspace_digest(workspace))
