"""What a fresh search needs to embed its query without loading a model, kept beside the index.

A fresh `wherein search` spends more on loading a model than on searching: the fast
tier's tokenizer alone takes 60 ms, the configured model (onnxruntime and MiniLM)
far more. A query's vector depends only on the model and the text, and agents ask
the same question again often, so each one computed is kept in a small SQLite file
beside the index: keyed by a digest of model and text (no query text is stored),
at most QUERY_VECTORS_KEPT of them, the oldest dropped first.

A new query needs the fast tier's token ids, which its tokenizer gives only after
loading for 60-90 ms. But a query about a repository is mostly made of words its code
holds, and indexing cut that code into the same pieces (`wherein.embedding.static_tokens`):
the same file keeps the ids of each piece a query could hold, as indexing learned them,
so the query's ids are read instead (`wherein.embedding.static.query_from_pieces`).
Those pieces are the indexed code's own words; no query's are written.

It is a cache: a file that is missing, locked, damaged or of another shape is a miss,
and the model is loaded as before; a write that fails is skipped.

A resident index (`wherein serve`) keeps its query vectors in memory instead.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from wherein.embedding.base import EmbedderIdentity
from wherein.ranking.vector import unit_rows
from wherein.storage.database import SQL_VARIABLE_BATCH, marked_batches

__all__ = ["PIECES_MAX_BYTES", "QUERY_VECTORS_FILE_NAME", "QUERY_VECTORS_KEPT", "QueryVectors"]

QUERY_VECTORS_FILE_NAME = "query-vectors.db"
# 4096 vectors of 384 floats are 6 MB.
QUERY_VECTORS_KEPT = 4096
# The file's bound (pages in use): past it, the pieces start again. The standard library's
# 90,000 pieces take 4 MB; counting them took 0.1-1.3 s, on cold pages, of a search after
# an edit, where the file's page counts take microseconds.
PIECES_MAX_BYTES = 64 << 20
# Pieces looked up in one statement, as every `IN (...)` of the index is batched.
PIECES_PER_LOOKUP = SQL_VARIABLE_BATCH
# Never wait on another process's write for long: a miss costs less.
BUSY_TIMEOUT_S = 0.05


class QueryVectors:
    """The query vectors kept for one index, read and written through one connection."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / QUERY_VECTORS_FILE_NAME
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self._read: dict[str, np.ndarray | None] = {}
        self._pieces_counted = False

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

    def known_pieces(
        self, identity: EmbedderIdentity, pieces: Iterable[str]
    ) -> dict[str, list[int]]:
        """The token ids kept for those of `pieces` that indexing met, by the model `identity`."""
        wanted = list(dict.fromkeys(pieces))
        if not wanted or not self.path.exists():
            return {}
        conn = self._connect()
        if conn is None:
            return {}
        found: dict[str, list[int]] = {}
        model = _model_tag(identity)
        try:
            for part, marks in marked_batches(wanted, PIECES_PER_LOOKUP):
                rows = conn.execute(
                    f"SELECT piece, ids FROM pieces WHERE model = ? AND piece IN ({marks})",
                    (model, *part),
                ).fetchall()
                for piece, blob in rows:
                    if isinstance(blob, bytes) and blob and len(blob) % 4 == 0:
                        found[piece] = array.array("i", blob).tolist()
        except sqlite3.Error:
            self._broken = True
            return {}
        return found

    def keep_pieces(self, identity: EmbedderIdentity, pieces: Mapping[str, Sequence[int]]) -> None:
        """Keep the token ids indexing learned for `pieces`; a failed write keeps nothing."""
        if not pieces:
            return
        conn = self._connect()
        if conn is None:
            return
        model = _model_tag(identity)
        rows = sorted(
            (model, piece, array.array("i", ids).tobytes()) for piece, ids in pieces.items() if ids
        )
        try:
            with conn:
                if not self._pieces_counted:  # once per process, from two numbers SQLite keeps
                    self._pieces_counted = True
                    if _used_bytes(conn) > PIECES_MAX_BYTES:
                        conn.execute("DELETE FROM pieces")
                conn.executemany("INSERT OR IGNORE INTO pieces VALUES (?, ?, ?)", rows)
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
        vector = np.frombuffer(row[0], dtype=np.float32).copy()
        # Every model's vectors are unit length (or zero): any other row was damaged after it
        # was written, and ranking by it would rank by noise, query after query. The model
        # embeds the query again, and `put` writes over the row.
        return vector if unit_rows(vector[None, :]) else None

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
        conn.execute(
            "CREATE TABLE IF NOT EXISTS pieces (model TEXT NOT NULL, piece TEXT NOT NULL, "
            "ids BLOB NOT NULL, PRIMARY KEY (model, piece)) WITHOUT ROWID"
        )
    except BaseException:
        conn.close()
        raise
    return conn


def _used_bytes(conn: sqlite3.Connection) -> int:
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    (free,) = conn.execute("PRAGMA freelist_count").fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    return (pages - free) * size


def _model_tag(identity: EmbedderIdentity) -> str:
    """A short name of the model, stored in each piece's row."""
    return hashlib.sha256(identity.key().encode()).hexdigest()[:12]


def _key(identity: EmbedderIdentity, text: str) -> str:
    return hashlib.sha256(f"{identity.key()}\0{text}".encode()).hexdigest()
