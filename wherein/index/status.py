"""What the index of a workspace holds, read without creating or changing anything."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from wherein.index.location import INDEX_FILE_NAME, index_dir

__all__ = ["read_status"]


def read_status(workspace: Path) -> dict[str, Any]:
    """Counts, pending work and embedder of the workspace's index; `exists` False if none."""
    path = index_dir(workspace) / INDEX_FILE_NAME
    status: dict[str, Any] = {"workspace": str(workspace), "index_path": str(path)}
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
            "SELECT count(DISTINCT c.file_id), count(*) FROM chunks c "
            "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.text_hash = c.text_hash)"
        ).fetchone()
        meta = dict(conn.execute("SELECT key, value FROM meta"))
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
        "size_bytes": path.stat().st_size,
    }
