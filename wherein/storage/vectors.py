"""Vectors as SQLite keeps them: float32 bytes keyed by the hash of the text embedded.

Both corpora store a vector once per distinct text (a chunk copied into two files, a
message repeated in two conversations), so a row that moves keeps its vector.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

__all__ = ["stack_vectors", "vector_rows", "write_vectors"]


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
