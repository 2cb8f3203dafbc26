"""Derived arrays kept as plain `.npy` files: read only as written, mapped, written whole.

Two caches keep arrays so: each tier's vectors beside its index (`wherein.index.vector_cache`)
and the fast model's float32 matrix in the machine's model cache
(`wherein.embedding.static_matrix`). Either file may be lost or damaged at any time and
made again from its source, so a file is used only when it is exactly what was written: a
regular file (a link is not followed, a FIFO not waited on), a `.npy` header of the
expected dtype and shape, and exactly the bytes that header promises. A file is written
under a fresh name and renamed into place, so a reader never meets half of one.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from pathlib import Path

import numpy as np

from wherein.safe_files import UnsafeFile, open_regular

__all__ = ["read_array", "write_array"]

# `np.save` writes a 128-byte header for these arrays; a longer one is not ours.
MAX_HEADER_BYTES = 4096


def read_array(
    path: Path, dtype: np.dtype, shape: tuple[int, ...], *, mapped: bool
) -> np.ndarray | None:
    """The array at `path` if its header says exactly `dtype` and `shape` and the file holds
    exactly that many bytes after it, else None; mapped read-only, not read, when `mapped`."""
    size = int(np.prod(shape)) * dtype.itemsize
    try:
        handle = open_regular(path, max_bytes=MAX_HEADER_BYTES + size)
    except UnsafeFile:
        return None
    if handle is None:
        return None
    with handle:
        try:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(handle, MAX_HEADER_BYTES)
            elif version == (2, 0):
                header = np.lib.format.read_array_header_2_0(handle, MAX_HEADER_BYTES)
            else:
                return None
            found_shape, fortran_order, found_dtype = header
            offset = handle.tell()
            if found_shape != shape or fortran_order or found_dtype != dtype:
                return None
            if os.fstat(handle.fileno()).st_size != offset + size:
                return None
            if mapped:
                return _mapped(handle, dtype, offset, shape)
            data = handle.read(size)
        except (OSError, ValueError, SyntaxError, EOFError):
            return None
    return np.frombuffer(data, dtype=dtype).reshape(shape) if len(data) == size else None


def write_array(path: Path, array: np.ndarray) -> None:
    """Write `array` at `path` under a fresh name (`mkstemp`: no planted link is written
    through), then rename it into place. Not with `safe_files.write_atomic`, whose fsync a
    cache does not need (lost in a crash, it is made again) and a search would pay.

    Raises:
        OSError: the folder cannot be written (nothing is left behind).
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, np.ascontiguousarray(array), allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mapped(handle, dtype: np.dtype, offset: int, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only plain array over the file's pages from `offset`. Not `np.memmap`: each
    index of that subclass runs Python code (40 us of a warm search of the standard library)."""
    count = int(np.prod(shape))
    if count == 0:
        return np.zeros(shape, dtype=dtype)
    pages = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(pages, dtype=dtype, count=count, offset=offset).reshape(shape)
