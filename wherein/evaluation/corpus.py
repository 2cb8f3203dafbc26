"""The files an evaluation reads: what the index holds of the workspace, each read once.

The baselines rank the same files wherein ranks (the index's list, so ignore rules, size
caps and generated-file rules apply to all three alike), the lexical split reads the gold
files, and the context cost needs each result file's length. A repository may plant links or
FIFOs, so every read goes through `safe_files.read_regular`: no links, regular files, bounded.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.safe_files import UnsafeFile, read_regular
from wherein.storage.database import open_read_only

__all__ = ["Corpus", "indexed_paths"]


def indexed_paths(workspace: Path) -> list[str]:
    """The workspace's files with chunks in its index (extra roots left out), sorted.

    Read-only, as `wherein status` reads: nothing in the index changes.
    """
    path = index_dir(workspace) / INDEX_FILE_NAME
    if not path.is_file():
        return []
    conn = open_read_only(path)
    try:
        rows = conn.execute(
            "SELECT path FROM files WHERE skipped IS NULL AND root = ? ORDER BY path",
            (str(workspace),),
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    return [row[0] for row in rows]


class Corpus:
    """The text of workspace files by relative path, read at most once each."""

    def __init__(self, workspace: Path, paths: list[str], max_bytes: int) -> None:
        self.workspace = workspace
        self.paths = paths
        self.max_bytes = max_bytes
        self._texts: dict[str, str | None] = {}

    def text(self, path: str) -> str | None:
        """The file's text (undecodable bytes replaced), or None if it cannot be read safely."""
        if path not in self._texts:
            self._texts[path] = self._read(self.workspace / path)
        return self._texts[path]

    def chars(self, path: str, source_path: str | None = None) -> int:
        """The file's length in characters; a result from an extra root names its own file."""
        if source_path is not None:
            key = source_path
            if key not in self._texts:
                self._texts[key] = self._read(Path(source_path))
            return len(self._texts[key] or "")
        return len(self.text(path) or "")

    def _read(self, path: Path) -> str | None:
        try:
            data = read_regular(path, max_bytes=self.max_bytes)
        except UnsafeFile:
            return None
        return None if data is None else data.decode("utf-8", "replace")
