"""What the index of a workspace holds, read without creating or changing anything."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.storage.aside import database_not_regular
from wherein.workspace import Root

__all__ = ["read_status"]


def read_status(
    workspace: Path, markers: Sequence[str] = (), roots: Sequence[Root] = ()
) -> dict[str, Any]:
    """Counts, pending work and embedder of the workspace's index; `exists` False if none.

    With `markers`, `scopes` lists every indexed folder holding a marker file; with `roots`
    (extra source roots), `roots` gives each one's counts.
    """
    path = index_dir(workspace) / INDEX_FILE_NAME
    status: dict[str, Any] = {"workspace": str(workspace), "index_path": str(path)}
    irregular = database_not_regular(path)
    if irregular is not None:  # not opened: SQLite would follow a link, open a FIFO
        advice = "run 'wherein index' to move it aside and build a new index"
        return {**status, "exists": True, "error": f"{irregular}; {advice}"}
    if not path.is_file():
        return {**status, "exists": False}
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as err:
        return {**status, "exists": True, "error": str(err)}
    try:
        files, skipped, chunks, vectors = conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE skipped IS NULL), "
            "(SELECT count(*) FROM files WHERE skipped IS NOT NULL), "
            "(SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors)"
        ).fetchone()
        pending_files, pending_chunks = conn.execute(
            "SELECT count(DISTINCT file_id), count(*) FROM chunks WHERE has_vector = 0"
        ).fetchone()
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        fast = _fast_tier(conn, meta)
        scopes = _marked_scopes(conn, workspace, markers)
        root_counts = [_root_counts(conn, root) for root in roots]
    except sqlite3.Error as err:
        if "readonly" in str(err) or "unable to open" in str(err):
            # A WAL index needs its directory writable even to be read; rebuilding won't help.
            advice = f"make {path.parent} writable or set WHEREIN_HOME to a writable directory"
        else:
            advice = "run 'wherein index' to rebuild it"
        return {**status, "exists": True, "error": f"{err}; {advice}"}
    finally:
        conn.close()
    return {
        **status,
        "exists": True,
        "files": files,
        "skipped_files": skipped,
        "chunks": chunks,
        "vectors": vectors,
        "pending": {"files": pending_files, "chunks": pending_chunks},
        "embedder": meta.get("embedder"),
        "fast_tier": fast,
        "size_bytes": path.stat().st_size,
        "scopes": scopes,
        "roots": root_counts,
    }


def _fast_tier(conn: sqlite3.Connection, meta: dict[str, str]) -> dict[str, Any] | None:
    """The fast tier's model and coverage; None for an index written before tiers existed
    (status opens read-only, so it never migrates one)."""
    try:
        done, pending = conn.execute(
            "SELECT count(*) FILTER (WHERE has_fast = 1), count(*) FILTER (WHERE has_fast = 0) "
            "FROM chunks"
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return {"model": meta.get("fast_embedder"), "chunks": done, "pending": pending}


def _marked_scopes(conn: sqlite3.Connection, workspace: Path, markers: Sequence[str]) -> list:
    """Folders of the workspace holding a marker file, as indexed, with what they hold.

    Read from the index, not the disk, so status stays cheap on a large tree; the workspace
    root itself is no scope (it would narrow nothing).
    """
    folders: dict[str, set[str]] = {}
    for marker in markers:
        suffix = "/" + marker
        rows = conn.execute(
            "SELECT path FROM files WHERE root = ? AND substr(path, -length(?)) = ?",
            (str(workspace), suffix, suffix),
        )
        for (found,) in rows:
            folders.setdefault(found[: -len(suffix)], set()).add(marker)
    scopes = []
    for folder in sorted(folders):
        files, chunks = conn.execute(
            "SELECT count(DISTINCT f.id), count(c.id) FROM files f "
            "LEFT JOIN chunks c ON c.file_id = f.id "
            "WHERE f.root = ? AND f.skipped IS NULL AND f.path LIKE ? ESCAPE '\\'",
            (str(workspace), _like_folder(folder)),
        ).fetchone()
        scopes.append(
            {"focus": folder, "markers": sorted(folders[folder]), "files": files, "chunks": chunks}
        )
    return scopes


def _root_counts(conn: sqlite3.Connection, root: Root) -> dict[str, Any]:
    files, chunks = conn.execute(
        "SELECT count(DISTINCT f.id), count(c.id) FROM files f "
        "LEFT JOIN chunks c ON c.file_id = f.id WHERE f.root = ? AND f.skipped IS NULL",
        (str(root.path),),
    ).fetchone()
    return {"label": root.label, "path": str(root.path), "files": files, "chunks": chunks}


def _like_folder(folder: str) -> str:
    escaped = folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"
