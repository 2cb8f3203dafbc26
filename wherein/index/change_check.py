"""A cheap answer to "could a new walk find anything new?", for a process that stays up.

A walk costs tens of milliseconds on a repository and more on a large tree (scandir,
sorting, ignore rules for every entry); a resident search would pay it before every
query. Instead the last walk leaves a stamp: the (size, mtime_ns) of every directory
it entered, every ignore file it read and every file it listed. Adding, removing or
renaming a file changes its directory's mtime; editing one changes its own; so when
a `stat` of each stamped path still matches, a walk would find what the index holds.
The exception is the one the stat fast path already accepts: a rewrite that keeps
size and mtime to the nanosecond.

A resident process keeps the stamp in memory; a fresh `wherein search` reads the one
the last refresh saved beside the index, valid only for the same roots and the same
index state (another process that changed the index makes it void).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR

__all__ = ["STAMP_FILE_NAME", "TreeStamp", "load_stamp", "save_stamp"]

# Kept beside index.db, so a fresh `wherein search` can skip the walk as a resident one does.
STAMP_FILE_NAME = "walk-stamp.json"
STAMP_FORMAT = 1
# About 100 bytes a path: room for a million files; a larger file is not ours to trust.
MAX_STAMP_BYTES = 128 << 20


@dataclass(frozen=True)
class TreeStamp:
    """What one walk saw, checked again by `stat` alone."""

    paths: tuple[str, ...]
    sizes: tuple[int, ...]
    mtimes: tuple[int, ...]

    @classmethod
    def of(cls, watched: Sequence[tuple[str, int, int]]) -> TreeStamp:
        paths, sizes, mtimes = zip(*watched, strict=True) if watched else ((), (), ())
        return cls(tuple(paths), tuple(sizes), tuple(mtimes))

    def unchanged(self) -> bool:
        """True when every stamped path still has the size and mtime the walk saw."""
        stat = os.stat
        for path, size, mtime in zip(self.paths, self.sizes, self.mtimes, strict=True):
            try:
                info = stat(path, follow_symlinks=False)
            except OSError:
                return False
            # A directory's st_size follows its entries on some file systems; its mtime says more.
            if info.st_mtime_ns != mtime or (info.st_size != size and not S_ISDIR(info.st_mode)):
                return False
        return True


def save_stamp(directory: Path, key: str, generation: str, stamp: TreeStamp) -> None:
    """Keep the stamp beside the index for the next process; a failed write keeps none."""
    path = directory / STAMP_FILE_NAME
    payload = {
        "format": STAMP_FORMAT,
        "key": key,
        "generation": generation,
        "paths": stamp.paths,
        "sizes": stamp.sizes,
        "mtimes": stamp.mtimes,
    }
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(payload, handle)
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            tmp.unlink()


def load_stamp(directory: Path, key: str, generation: str) -> TreeStamp | None:
    """The stamp the last walk of these roots left at this index state, or None.

    Anything unexpected (no file, another format, another key or state, a damaged or
    oversized file) means None, and the caller walks as it would have anyway.
    """
    path = directory / STAMP_FILE_NAME
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_STAMP_BYTES + 1)
        if len(data) > MAX_STAMP_BYTES:
            return None
        payload = json.loads(data)
        if (
            payload.get("format") != STAMP_FORMAT
            or payload.get("key") != key
            or payload.get("generation") != generation
        ):
            return None
        stamp = TreeStamp(
            tuple(str(p) for p in payload["paths"]),
            tuple(int(s) for s in payload["sizes"]),
            tuple(int(m) for m in payload["mtimes"]),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    if not len(stamp.paths) == len(stamp.sizes) == len(stamp.mtimes):
        return None
    return stamp
