"""A derived copy of the index's vectors as one numpy file, so a search need not join them.

Reading 25k vectors out of SQLite row by row costs far more than the search it
serves (77k vectors took ~5 s); one `.npy` pair loads in milliseconds. SQLite stays
the truth: the cache carries the key of the index state it was built from and is
rebuilt whenever that key differs. Losing it costs one read, nothing else.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

__all__ = ["load_vector_cache", "save_vector_cache", "stack_vectors"]

CACHE_NAME = "vectors.npz"


def _cache_path(index_path: Path) -> Path:
    return index_path.with_name(CACHE_NAME)


def load_vector_cache(index_path: Path, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, matrix) if a cache built for `key` exists and reads cleanly, else None."""
    path = _cache_path(index_path)
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["key"]) != key:
                return None
            return data["ids"], data["matrix"]
    except (OSError, KeyError, ValueError, EOFError):
        return None


def save_vector_cache(index_path: Path, key: str, ids: np.ndarray, matrix: np.ndarray) -> None:
    """Write the cache atomically; a read-only or full disk just leaves no cache."""
    path = _cache_path(index_path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            np.savez(handle, key=np.array(key), ids=ids, matrix=matrix)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def stack_vectors(rows: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, matrix) from SQLite rows of (id, float32 vector bytes), in row order."""
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, matrix.reshape(len(rows), -1)
