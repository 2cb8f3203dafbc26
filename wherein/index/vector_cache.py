"""A derived copy of each tier's vectors as plain `.npy` files, memory-mapped by a search.

Reading 25k vectors out of SQLite row by row costs far more than the search it
serves (77k vectors took ~5 s), and even a zipped `.npz` must be decoded whole on
every start (11 ms of a warm search). A `.npy` pair is mapped instead: the pages
come from the OS cache, nothing is decoded. SQLite stays the truth: the files are
named by a digest of the index state they were built from, so a stale pair is
never read; losing them costs one read, nothing else.

Each file is checked as it is opened, against what SQLite says the tier holds: a
regular file (a link is not followed, a FIFO not waited on), a `.npy` header of the
dtype and shape of the tier's vectors, exactly the bytes that header promises, and ids
in the strictly increasing order they were written in. A file that fails is rebuilt
from SQLite; anything but a regular file at a cache's name (a folder, a FIFO, a link)
may be someone's, so it is moved aside and the caller is told. Rows damaged inside a
file that passes those checks are caught when a search sums them, by a similarity past 1
or NaN (`wherein.errors.VectorsDamaged`; `wherein index` checks every row): that file is
moved aside (`discard_vector_cache`), and the caller told, too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import numpy as np

from wherein.safe_files import not_regular
from wherein.storage.arrays import read_array, write_array
from wherein.storage.aside import move_aside

__all__ = ["cache_exists", "discard_vector_cache", "load_vector_cache", "save_vector_cache"]

CACHE_PREFIX = "vectors"
IDS_DTYPE = np.dtype(np.int64)
MATRIX_DTYPE = np.dtype(np.float32)


def _cache_paths(index_path: Path, tier: str, key: str) -> tuple[Path, Path]:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    stem = f"{CACHE_PREFIX}-{tier}-{digest}"
    return index_path.with_name(f"{stem}.ids.npy"), index_path.with_name(f"{stem}.matrix.npy")


def cache_exists(index_path: Path, tier: str, key: str) -> bool:
    """Whether anything sits at either name of the cache built for `key`."""
    return any(os.path.lexists(path) for path in _cache_paths(index_path, tier, key))


def load_vector_cache(
    index_path: Path, tier: str, key: str, shape: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, matrix) if the cache built for `key` holds `shape` (rows, width) as written, else
    None: missing, damaged, of another shape or dtype, or not a regular file."""
    ids_path, matrix_path = _cache_paths(index_path, tier, key)
    rows, _ = shape
    ids = read_array(ids_path, IDS_DTYPE, (rows,), mapped=False)
    if ids is None or (rows > 1 and not bool(np.all(ids[1:] > ids[:-1]))):
        return None
    matrix = read_array(matrix_path, MATRIX_DTYPE, shape, mapped=True)
    if matrix is None:
        return None
    return ids, matrix


def discard_vector_cache(index_path: Path, tier: str, key: str, notices: list[str]) -> None:
    """Move aside the cache built for `key`, whose rows read as damaged (`VectorsDamaged`):
    its header and size were right, so the bytes changed after it was written. Kept, as
    `<name>.broken-<time>` with its ids, for whoever wants to know what happened; said in
    `notices`."""
    ids_path, matrix_path = _cache_paths(index_path, tier, key)
    moved = None
    for path in (matrix_path, ids_path):
        if not os.path.lexists(path):
            continue
        try:
            aside = move_aside(path)
        except OSError:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        moved = moved or aside
    where = f"moved aside to {moved.name}" if moved is not None else "removed"
    notices.append(
        f"The {tier} tier's vector cache {matrix_path.name} held rows that are not unit "
        f"vectors, or zeros the index does not hold (damaged since it was written): {where}, "
        "and read again from the index."
    )


def save_vector_cache(
    index_path: Path,
    tier: str,
    key: str,
    ids: np.ndarray,
    matrix: np.ndarray,
    notices: list[str],
) -> None:
    """Write the cache and drop older ones; a read-only or full disk leaves none.

    Each file is written whole or not at all (`storage.arrays.write_array`). Anything but
    a regular file at a cache's name is moved aside first, said in `notices`.
    """
    paths = _cache_paths(index_path, tier, key)
    try:
        # The matrix first: a reader needs both files, and the ids appear last.
        for path, array in zip(reversed(paths), (matrix, ids), strict=True):
            _clear_the_way(path, notices)
            write_array(path, array)
    except OSError:
        return
    keep = {path.name for path in paths}
    for old in index_path.parent.glob(f"{CACHE_PREFIX}-{tier}-*.npy"):
        if old.name not in keep and not_regular(old) is None:
            with contextlib.suppress(OSError):
                old.unlink()
    with contextlib.suppress(OSError):  # the single-file cache of earlier versions
        index_path.with_name("vectors.npz").unlink()


def _clear_the_way(path: Path, notices: list[str]) -> None:
    """Move aside a folder, FIFO, link or device at `path`: `os.replace` cannot put a file
    over a folder, and what is there may not be ours to delete."""
    kind = not_regular(path)
    if kind is not None:
        aside = move_aside(path)
        notices.append(
            f"The vector cache {path} was {kind}, not a regular file; moved it to {aside} "
            "and rebuilt the cache from the index."
        )
