"""Vectors as SQLite keeps them: float32 bytes keyed by the hash of the text embedded.

Both corpora store a vector once per distinct text (a chunk copied into two files, a
message repeated in two conversations), so a row that moves keeps its vector.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

__all__ = ["VECTOR_TABLE", "make_vector_rows", "stack_vectors", "vector_rows", "write_vectors"]

# A rowid table, not WITHOUT ROWID: there a row must fit in about 1,000 bytes of a 4 KiB page
# or it spills into an overflow page of its own, and every vector is larger (1,024 bytes for
# the fast tier's 256 float32, 1,536 for MiniLM's 384): the standard library's fast vectors
# took 223 MB and their inserts a fifth of its first index. As rowid rows three or four share
# a page: 69 MB, and inserting 47,500 of them took about half the time.
VECTOR_TABLE = """
CREATE TABLE {table} (
    id INTEGER PRIMARY KEY,
    text_hash TEXT NOT NULL UNIQUE,
    vector BLOB NOT NULL
)"""


def make_vector_rows(conn: sqlite3.Connection, table: str) -> None:
    """Rebuild the WITHOUT ROWID vector `table` as a `VECTOR_TABLE`, its rows kept (a
    migration: the caller holds the write transaction)."""
    conn.execute(VECTOR_TABLE.format(table=f"{table}_rows"))
    conn.execute(
        f"INSERT INTO {table}_rows(text_hash, vector) SELECT text_hash, vector FROM {table}"
    )
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE {table}_rows RENAME TO {table}")


def vector_rows(items: Sequence[tuple[str, np.ndarray]]) -> list[tuple[str, bytes]]:
    """(text hash, float32 bytes) rows of (text hash, vector) pairs."""
    return [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]


def write_vectors(conn: sqlite3.Connection, table: str, rows: Sequence[tuple[str, bytes]]) -> None:
    """Store (text hash, float32 bytes) rows in `table`, replacing a hash's older vector."""
    conn.executemany(f"INSERT OR REPLACE INTO {table}(text_hash, vector) VALUES (?, ?)", rows)


def stack_vectors(rows: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, matrix) from SQLite rows of (id, float32 vector bytes), in row order."""
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, matrix.reshape(len(rows), -1)
