"""Every index under the data home, described without opening anything for writing.

For `wherein indexes` and `wherein gc`: whose index each is, how much room it takes, what its
tiers hold, when it was last used and whether its workspace is still there. The workspace comes
from the index's record (`owner.py`); an index from before records existed is matched to the
workspace whose path hashes to the directory's name among the roots its files table lists; with
neither it is "unknown", and nothing is ever removed for being unknown.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wherein.index.location import INDEX_FILE_NAME, WORKSPACES_DIR_NAME, data_home
from wherein.index.owner import names_directory, read_owner
from wherein.index.tiers import TIERS
from wherein.storage.aside import database_not_regular
from wherein.storage.database import open_read_only

__all__ = [
    "GONE",
    "PRESENT",
    "UNKNOWN",
    "IndexEntry",
    "describe_index",
    "disk_use",
    "list_indexes",
    "own_folders",
]

# The names `index_dir` gives: a cleaned basename, a dash, 16 hex digits of the path's hash.
INDEX_DIR_NAME = re.compile(r"^[A-Za-z0-9._-]+-[0-9a-f]{16}$")
# Whether the workspace folder is there: "gone" only on the system's own word that it is not.
PRESENT = "present"
GONE = "gone"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class IndexEntry:
    """One index directory, as `wherein indexes --json` shows it."""

    name: str
    path: Path
    workspace: str | None
    workspace_from: str | None  # "record" | "index" (the files table) | None
    workspace_state: str  # PRESENT | GONE | UNKNOWN
    size_bytes: int
    last_used: float | None
    last_written: float | None
    files: int | None = None
    chunks: int | None = None
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.path),
            "workspace": self.workspace,
            "workspace_from": self.workspace_from,
            "workspace_state": self.workspace_state,
            "size_bytes": self.size_bytes,
            "files": self.files,
            "chunks": self.chunks,
            "tiers": self.tiers,
            "last_used": _iso(self.last_used),
            "last_written": _iso(self.last_written),
            "error": self.error,
        }


def own_folders(folder: Path, pattern: re.Pattern[str]) -> list[str]:
    """The names in `folder` that match `pattern` and are real folders (a link or a file of
    that name is not ours), sorted; none when `folder` is missing."""
    try:
        with os.scandir(folder) as listing:
            return sorted(
                entry.name
                for entry in listing
                if pattern.match(entry.name) and entry.is_dir(follow_symlinks=False)
            )
    except (FileNotFoundError, NotADirectoryError):
        return []


def list_indexes(home: Path | None = None) -> list[IndexEntry]:
    """Every index directory under `<home>/workspaces`, by workspace path (unknown ones last).

    Only real folders with an index's name count: a link or another file there is not ours.
    """
    folder = (data_home() if home is None else home) / WORKSPACES_DIR_NAME
    entries = [describe_index(folder / name) for name in own_folders(folder, INDEX_DIR_NAME)]
    return sorted(entries, key=lambda e: (e.workspace is None, e.workspace or "", e.name))


def describe_index(directory: Path) -> IndexEntry:
    """What the index in `directory` holds; a damaged database is an `error`, never a raise."""
    owner = read_owner(directory)
    size = disk_use(directory)
    counts, roots, error = _read_counts(directory / INDEX_FILE_NAME)
    workspace, source = owner.workspace, "record" if owner.workspace else None
    if workspace is None:
        workspace = next((root for root in roots if names_directory(root, directory)), None)
        source = "index" if workspace else None
    return IndexEntry(
        name=directory.name,
        path=directory,
        workspace=workspace,
        workspace_from=source,
        workspace_state=_state(workspace),
        size_bytes=size,
        last_used=owner.last_used,
        last_written=_mtime(directory / INDEX_FILE_NAME),
        files=counts.get("files"),
        chunks=counts.get("chunks"),
        tiers=counts.get("tiers", {}),
        error=error,
    )


def _state(workspace: str | None) -> str:
    if workspace is None:
        return UNKNOWN
    try:
        info = os.stat(workspace)
    except (FileNotFoundError, NotADirectoryError):
        return GONE
    except (OSError, ValueError):  # no permission to look: not the same as gone
        return UNKNOWN
    return PRESENT if stat.S_ISDIR(info.st_mode) else GONE


def disk_use(directory: Path) -> int:
    """Bytes allocated to the regular files below `directory`, as `du` counts; no link is
    followed."""
    total = 0
    for parent, _folders, files in os.walk(directory):
        for name in files:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(parent, name))
                if stat.S_ISREG(info.st_mode):
                    total += info.st_blocks * 512
    return total


def _mtime(path: Path) -> float | None:
    """When the database was last written to (SQLite's checkpoint moves it), or None.

    Not the newest file of the folder: a read-only reader creates `-wal` and `-shm` files."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_mtime if stat.S_ISREG(info.st_mode) else None


def _read_counts(path: Path) -> tuple[dict[str, Any], list[str], str | None]:
    """(counts, the roots its files table lists, an error) of the database at `path`."""
    try:
        irregular = database_not_regular(path)
        present = path.is_file()
    except OSError as err:  # the folder may not be searched (mode 000)
        return {}, [], f"index.db cannot be read ({err.strerror or err})"
    if irregular is not None:  # SQLite would follow a link, open a FIFO
        return {}, [], irregular
    if not present:
        return {}, [], "no index.db in it (an index never built, or one being replaced)"
    try:
        conn = open_read_only(path)
    except sqlite3.Error as err:
        return {}, [], f"index.db cannot be opened ({err})"
    try:
        files, chunks = conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE skipped IS NULL), "
            "(SELECT count(*) FROM chunks)"
        ).fetchone()
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        tiers = {}
        for tier in TIERS.values():
            try:
                (done,) = conn.execute(
                    f"SELECT count(*) FROM chunks WHERE {tier.flag} = 1"
                ).fetchone()
            except sqlite3.OperationalError:  # an index from before this tier existed
                continue
            tiers[tier.name] = {"model": meta.get(tier.meta_key), "chunks": done}
        roots = [root for (root,) in conn.execute("SELECT DISTINCT root FROM files")]
    except sqlite3.Error as err:
        return {}, [], f"index.db cannot be read ({err})"
    finally:
        conn.close()
    return {"files": files, "chunks": chunks, "tiers": tiers}, roots, None


def _iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="seconds")
