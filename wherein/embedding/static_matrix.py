"""The fast model's token vectors in float32, made once per machine and mapped by every process.

WordLlama ships its token vectors in float16, and pooling needs them in float32. Widening
the whole matrix (32,000 x 256) cost each indexing worker 20-136 ms and 32 MB of memory
of its own. Instead, a float32 copy is made on first use (about 50 ms) in the machine's
model cache (`storage.paths.model_cache_dir`, beside the default model's int8 graph) and
mapped read-only by each process that pools: its pages come from the OS cache, shared by
the workers and by every later run. Paired against widening (15 runs each), pydantic's
first search took 0.97x the wall time and 0.97x the CPU, its peak memory 95 MiB against 112.

The copy is named by the weights file it was made from (its size and mtime, so a new
release of the model gets a new copy) and checked as it is opened: a regular file holding
a float32 array of the weights' shape and nothing else (`storage.arrays.read_array`),
whose rows at a few places spread over the vocabulary equal the weights' own, widened. A
copy that fails is made again; anything but a regular file at its name is moved aside. A
cache that cannot be written costs only speed: the caller widens in memory.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from wherein.safe_files import not_regular
from wherein.storage.arrays import read_array, write_array
from wherein.storage.aside import move_aside
from wherein.storage.paths import model_cache_dir

__all__ = ["FORMAT", "cached_float32", "float32_path", "keep_float32"]

# Part of the copy's name: a change to how it is made gets a new one.
FORMAT = "float32-1"
FLOAT32 = np.dtype("<f4")
# Rows compared with the weights at each open: blocks at evenly spread places.
CHECKED_BLOCKS = 8
CHECKED_ROWS = 16


def float32_path(weights: Path, tensor: str) -> Path:
    """Where the float32 copy of `weights`' `tensor` lives.

    Raises:
        OSError: `weights` cannot be found.
    """
    info = os.stat(weights)
    name = f"{weights.stem}-{tensor}-{info.st_size}-{info.st_mtime_ns}-{FORMAT}.npy"
    return model_cache_dir() / name


def cached_float32(path: Path, stored) -> np.ndarray | None:
    """The copy at `path`, mapped, when it checks out against `stored` (the weights' tensor,
    a `safetensors` slice: only the rows compared are read from it), else None."""
    shape = tuple(stored.get_shape())
    if len(shape) != 2:
        return None
    copy = read_array(path, FLOAT32, shape, mapped=True)
    if copy is None:
        return None
    rows = shape[0]
    for start in np.linspace(0, max(rows - CHECKED_ROWS, 0), CHECKED_BLOCKS, dtype=np.int64):
        block = slice(int(start), int(start) + CHECKED_ROWS)
        if not np.array_equal(copy[block], stored[block].astype(np.float32)):
            return None
    return copy


def keep_float32(path: Path, matrix: np.ndarray) -> np.ndarray:
    """`matrix` widened to float32, written at `path` for the processes after this one.

    The widened array is returned from memory whether or not the write succeeds: a cache
    folder that cannot be written (read-only, full, not a folder) costs later processes
    their own widening, nothing more.
    """
    wide = matrix.astype(np.float32)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        if not_regular(path) is not None:
            move_aside(path)  # a folder, FIFO or link there: maybe someone's, never written through
        write_array(path, wide)
    return wide
