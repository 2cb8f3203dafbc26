"""Query vectors kept beside the index, so a fresh search that repeats a query loads no model.

A fresh `wherein search` spends more on loading a model than on searching: the fast
tier's tokenizer alone takes 60 ms, the configured model (onnxruntime and MiniLM)
far more. A query's vector depends only on the model and the text, and agents ask
the same question again often, so each one computed is kept in a small SQLite file
beside the index: keyed by a digest of model and text (no query text is stored),
at most QUERY_VECTORS_KEPT of them, the oldest dropped first. It is a cache: a file
that is missing, locked, damaged or of another shape is a miss, and the model is
loaded as before; a write that fails is skipped.

A resident index (`wherein serve`) keeps its query vectors in memory instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity

__all__ = ["QUERY_VECTORS_FILE_NAME", "QUERY_VECTORS_KEPT", "QueryVectors"]

QUERY_VECTORS_FILE_NAME = "query-vectors.db"
# 4096 vectors of 384 floats are 6 MB.
QUERY_VECTORS_KEPT = 4096
# Never wait on another process's write for long: a miss costs less.
BUSY_TIMEOUT_S = 0.05


class QueryVectors:
    """The query vectors kept for one index, read and written through one connection."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / QUERY_VECTORS_FILE_NAME
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self._read: dict[str, np.ndarray | None] = {}

    def get(self, identity: EmbedderIdentity, text: str) -> np.ndarray | None:
        """The vector kept for `text` by the model `identity`, or None."""
        key = _key(identity, text)
        if key not in self._read:
            self._read[key] = self._load(key, identity.dimension)
        return self._read[key]

    def put(self, identity: EmbedderIdentity, text: str, vector: np.ndarray) -> None:
        """Keep `vector` for the next process; a failed write keeps nothing."""
        key = _key(identity, text)
        row = np.ascontiguousarray(vector, dtype=np.float32)
        if row.shape != (identity.dimension,):
            return
        self._read[key] = row
        conn = self._connect()
        if conn is None:
            return
        try:
            with conn:
                conn.execute("DELETE FROM vectors WHERE key = ?", (key,))
                conn.execute("INSERT INTO vectors(key, vector) VALUES (?, ?)", (key, row.tobytes()))
                conn.execute(
                    "DELETE FROM vectors WHERE id <= (SELECT max(id) FROM vectors) - ?",
                    (QUERY_VECTORS_KEPT,),
                )
        except sqlite3.Error:
            self._broken = True

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def _load(self, key: str, dimension: int) -> np.ndarray | None:
        if not self.path.exists():
            return None
        conn = self._connect()
        if conn is None:
            return None
        try:
            row = conn.execute("SELECT vector FROM vectors WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            self._broken = True
            return None
        if row is None or not isinstance(row[0], bytes) or len(row[0]) != 4 * dimension:
            return None
        return np.frombuffer(row[0], dtype=np.float32).copy()

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self._conn = _open(self.path)
            except sqlite3.OperationalError:  # locked, or the folder is not writable
                self._broken = True
            except sqlite3.DatabaseError:  # not a database: ours to replace
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        Path(f"{self.path}{suffix}").unlink()
                try:
                    self._conn = _open(self.path)
                except sqlite3.Error:
                    self._broken = True
        return self._conn


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors "
            "(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, vector BLOB NOT NULL)"
        )
    except BaseException:
        conn.close()
        raise
    return conn


def _key(identity: EmbedderIdentity, text: str) -> str:
    return hashlib.sha256(f"{identity.key()}\0{text}".encode()).hexdigest()
