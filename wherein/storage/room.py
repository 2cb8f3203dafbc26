"""Whether the disk holding an index has room for the vectors still waiting to be written.

A `wherein index` stopped by a full disk cannot keep its reason in the index it failed to
write (`index.embed_failure`), so while chunks wait for a vector, `status` and each search
ask the disk itself: a sentence while it lacks the room, nothing once there is room again.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MIN_ROOM_BYTES", "VECTOR_ROW_BYTES", "low_room"]

# A generous bound on the room one waiting chunk's vector takes: a 384-dimension float32 row
# is 1.5 KB, written to the WAL and then into the file, with its share of the index's pages.
VECTOR_ROW_BYTES = 4096
# Below this SQLite may fail to write even a few rows (a transaction's WAL, a checkpoint).
MIN_ROOM_BYTES = 16 << 20


def low_room(folder: Path, waiting_chunks: int) -> str | None:
    """A sentence when the disk holding `folder` has less room than `waiting_chunks` vectors
    need, else None (and None when nothing waits or the disk cannot be asked)."""
    if waiting_chunks <= 0:
        return None
    try:
        info = os.statvfs(folder)
    except OSError:
        return None
    free = info.f_bavail * info.f_frsize
    needed = max(MIN_ROOM_BYTES, waiting_chunks * VECTOR_ROW_BYTES)
    if free >= needed:
        return None
    return (
        f"The disk holding {folder} has {_megabytes(free)} free, less than the "
        f"{_megabytes(needed)} the vectors of the {waiting_chunks:,} chunks waiting for one "
        "need: free some disk space, then run 'wherein index'."
    )


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB"
