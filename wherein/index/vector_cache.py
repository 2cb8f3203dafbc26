"""A derived copy of each tier's vectors as plain `.npy` files, memory-mapped by a search.

Reading 25k vectors out of SQLite row by row costs far more than the search it
serves (77k vectors took ~5 s), and even a zipped `.npz` must be decoded whole on
every start (11 ms of a warm search). A `.npy` pair is mapped instead: the pages
come from the OS cache, nothing is decoded. SQLite stays the truth: the files are
named by a digest of the index state they were built from, so a stale pair is
never read; losing them costs one read, nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import numpy as np

__all__ = ["load_vector_cache", "save_vector_cache", "stack_vectors"]

CACHE_PREFIX = "vectors"


def _cache_paths(index_path: Path, tier: str, key: str) -> tuple[Path, Path]:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    stem = f"{CACHE_PREFIX}-{tier}-{digest}"
    return index_path.with_name(f"{stem}.ids.npy"), index_path.with_name(f"{stem}.matrix.npy")


def load_vector_cache(
    index_path: Path, tier: str, key: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, matrix) if a cache built for `key` exists and reads cleanly, else None."""
    ids_path, matrix_path = _cache_paths(index_path, tier, key)
    try:
        ids = np.load(ids_path, allow_pickle=False)
        matrix = np.load(matrix_path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if ids.ndim != 1 or matrix.ndim != 2 or len(ids) != len(matrix) or ids.dtype != np.int64:
        return None
    return ids, matrix


def save_vector_cache(
    index_path: Path, tier: str, key: str, ids: np.ndarray, matrix: np.ndarray
) -> None:
    """Write the cache atomically and drop older ones; a read-only or full disk leaves none."""
    paths = _cache_paths(index_path, tier, key)
    written: list[Path] = []
    try:
        # The matrix first: a reader needs both files, and the ids appear last.
        for path, array in zip(reversed(paths), (matrix, ids), strict=True):
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            written.append(tmp)
            with open(tmp, "wb") as handle:
                np.save(handle, np.ascontiguousarray(array), allow_pickle=False)
            os.replace(tmp, path)
    except OSError:
        for tmp in written:
            with contextlib.suppress(OSError):
                tmp.unlink()
        return
    keep = {path.name for path in paths}
    for old in index_path.parent.glob(f"{CACHE_PREFIX}-{tier}-*.npy"):
        if old.name not in keep:
            with contextlib.suppress(OSError):
                old.unlink()
    with contextlib.suppress(OSError):  # the single-file cache of earlier versions
        index_path.with_name("vectors.npz").unlink()


def stack_vectors(rows: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, matrix) from SQLite rows of (id, float32 vector bytes), in row order."""
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return ids, matrix.reshape(len(rows), -1)
