"""A cheap answer to "could a new walk find anything new?", for a process that stays up.

A walk costs tens of milliseconds on a repository and more on a large tree (scandir,
sorting, ignore rules for every entry); a resident search would pay it before every
query. Instead the last walk leaves a stamp: the (size, mtime_ns) of every directory
it entered, every ignore file it read and every file it listed. Adding, removing or
renaming a file changes its directory's mtime; editing one changes its own; so when
a `stat` of each stamped path still matches, a walk would find what the index holds.
The exception is the one the stat fast path already accepts: a rewrite that keeps
size and mtime to the nanosecond.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["TreeStamp"]


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
            if info.st_mtime_ns != mtime or (info.st_size != size and not _is_dir(info)):
                return False
        return True


def _is_dir(info: os.stat_result) -> bool:
    # A directory's st_size follows its entries on some file systems; its mtime says more.
    return (info.st_mode & 0o170000) == 0o040000
