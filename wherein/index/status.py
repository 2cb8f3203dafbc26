"""What the index of a workspace holds, read without creating or changing anything."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein.index.embed_failure import EMBED_FAILURE, embed_failure_of
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.storage.aside import database_not_regular
from wherein.storage.database import open_immutable, open_read_only, wal_is_empty
from wherein.storage.paths import refused_advice
from wherein.storage.transaction import is_unwritable
from wherein.workspace import Root

__all__ = ["IndexStatus", "read_status"]


@dataclass(frozen=True)
class IndexStatus:
    """What one workspace's index holds; each surface (CLI text, `--json`, MCP) renders it.

    The counts are None when there is no index or it cannot be read (`error` says why).
    `fast_tier`, `scopes` and `roots` are the rows `status --json` shows, as they are shown.
    """

    workspace: Path
    index_path: Path
    exists: bool
    error: str | None = None
    files: int | None = None
    skipped_files: int | None = None
    chunks: int | None = None
    vectors: int | None = None
    pending_files: int | None = None
    pending_chunks: int | None = None
    embedder: str | None = None
    fast_tier: dict[str, Any] | None = None
    # What `VectorTables.note_embed_failure` kept: read by `embed_failure(configured)`.
    kept_failure: str | None = None
    size_bytes: int | None = None
    scopes: list[dict[str, Any]] | None = None
    roots: list[dict[str, Any]] | None = None

    def embed_failure(self, configured: str) -> str | None:
        """Why the last `wherein index` could not embed with the `configured` model, if so."""
        return embed_failure_of(self.kept_failure, configured)

    @property
    def readable(self) -> bool:
        """An index exists and its counts were read."""
        return self.exists and self.error is None

    def to_json(self) -> dict[str, Any]:
        """The index part of `wherein status --json` (docs/contracts.md)."""
        fields: dict[str, Any] = {
            "workspace": str(self.workspace),
            "index_path": str(self.index_path),
            "exists": self.exists,
        }
        if self.error is not None:
            return fields | {"error": self.error}
        if not self.exists:
            return fields
        return fields | {
            "files": self.files,
            "skipped_files": self.skipped_files,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "pending": {"files": self.pending_files, "chunks": self.pending_chunks},
            "embedder": self.embedder,
            "fast_tier": self.fast_tier,
            "size_bytes": self.size_bytes,
            "scopes": self.scopes,
            "roots": self.roots,
        }


def read_status(
    workspace: Path, markers: Sequence[str] = (), roots: Sequence[Root] = ()
) -> IndexStatus:
    """Counts, pending work and embedder of the workspace's index; `exists` False if none.

    With `markers`, `scopes` lists every indexed folder holding a marker file; with `roots`
    (extra source roots), `roots` gives each one's counts.
    """
    path = index_dir(workspace) / INDEX_FILE_NAME
    try:
        irregular = database_not_regular(path)
        present = path.is_file()
    except OSError as err:  # the index folder may not be searched (mode 000)
        why = f"{err.strerror or err}. {refused_advice(path.parent, err)}"
        return IndexStatus(workspace, path, True, why)
    if irregular is not None:  # not opened: SQLite would follow a link, open a FIFO
        advice = "run 'wherein index' to move it aside and build a new index"
        return IndexStatus(workspace, path, True, f"{irregular}; {advice}")
    if not present:
        return IndexStatus(workspace, path, False)
    return _read_status(workspace, path, markers, roots)


def _read_status(
    workspace: Path,
    path: Path,
    markers: Sequence[str],
    roots: Sequence[Root],
    immutable: bool = False,
) -> IndexStatus:
    """`read_status` through a connection of SQLite's own kind, or `open_immutable`'s where
    a full disk or a read-only folder refuses the `-shm` a read makes (as a search does)."""
    try:
        conn = open_immutable(path) if immutable else open_read_only(path)
    except sqlite3.Error as err:
        return _unread(err, workspace, path, markers, roots, immutable)
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
        if str(err).startswith("no such table"):
            # A file with nothing committed (zero bytes, its write-ahead log lost): SQLite
            # reads an empty database, which the next search or index builds as it would
            # build a missing one, so it is said as one, not as a failure.
            return IndexStatus(workspace, path, False)
        return _unread(err, workspace, path, markers, roots, immutable)
    finally:
        conn.close()
    return IndexStatus(
        workspace,
        path,
        True,
        files=files,
        skipped_files=skipped,
        chunks=chunks,
        vectors=vectors,
        pending_files=pending_files,
        pending_chunks=pending_chunks,
        embedder=meta.get("embedder"),
        fast_tier=fast,
        kept_failure=meta.get(EMBED_FAILURE),
        size_bytes=path.stat().st_size,
        scopes=scopes,
        roots=root_counts,
    )


def _unread(
    err: sqlite3.Error,
    workspace: Path,
    path: Path,
    markers: Sequence[str],
    roots: Sequence[Root],
    immutable: bool,
) -> IndexStatus:
    """The status of an index SQLite refused to read: read again without the `-shm` where
    only a write was refused, else the error with what to do about it."""
    if not is_unwritable(err):
        return IndexStatus(workspace, path, True, f"{err}; run 'wherein index' to rebuild it")
    if not immutable and wal_is_empty(path):
        return _read_status(workspace, path, markers, roots, immutable=True)
    # A WAL index needs its folder writable even to be read; rebuilding won't help.
    return IndexStatus(
        workspace, path, True, f"cannot be written ({err}). {refused_advice(path.parent, err)}"
    )


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
