"""A cheap answer to "could a new walk find anything new?", for a process that stays up.

A walk costs tens of milliseconds on a repository and more on a large tree (scandir,
sorting, ignore rules for every entry); a resident search would pay it before every
query. Instead the last walk leaves a stamp: the size and change time (st_ctime_ns,
`FileEntry.mtime_ns` says why not the modification time) of every directory it
entered, every ignore file it read and every file it listed. Adding, removing or
renaming a file changes its directory's; editing one, or changing its mode, changes
its own; so when a `stat` of each stamped path still matches, a walk would find what
the index holds.

A resident process keeps the stamp in memory; a fresh `wherein search` reads the one
the last refresh saved beside the index, valid only for the same roots and the same
index state (another process that changed the index makes it void).

What the walk was refused is stamped too: a folder it could not list by its own size and
change time, a file it could not read as any other file. A chmod that opens one moves its
change time (and raises an event in its folder's watch); access that comes another way (a
group joined, another user) moves nothing, so each check also tries to open each refused
path again (at most MAX_UNREADABLE_KEPT of them: past that the walk keeps no stamp). The
stamp keeps the walk's list of what it could not read, for each search to say again what
the index lacks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from stat import S_ISDIR

from wherein.safe_files import UnsafeFile, not_regular, read_regular, write_atomic
from wherein.storage.aside import move_aside

__all__ = ["MAX_UNREADABLE_KEPT", "STAMP_FILE_NAME", "TreeStamp", "load_stamp", "save_stamp"]

# Kept beside index.db, so a fresh `wherein search` can skip the walk as a resident one does.
STAMP_FILE_NAME = "walk-stamp.json"
STAMP_FORMAT = 1
# About 100 bytes a path: room for a million files; a larger file is not ours to trust.
MAX_STAMP_BYTES = 128 << 20
STAMP_LISTS = ("paths", "sizes", "mtimes")
# The unreadable entries a stamp names (a search's warning names three); it counts them all.
# Also the most refused paths a stamp tries again at each check; with more, no stamp is kept.
MAX_UNREADABLE_KEPT = 20
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in must not hang the check
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True)
class TreeStamp:
    """What one walk saw, checked again by `stat` alone."""

    paths: tuple[str, ...]
    sizes: tuple[int, ...]
    mtimes: tuple[int, ...]
    # What the walk (or reading its files) could not read, the first MAX_UNREADABLE_KEPT
    # of them, each "path (why)"; and how many there were.
    unreadable: tuple[str, ...] = ()
    unreadable_count: int = 0
    refused: tuple[str, ...] = ()  # the paths of the refusals among them, tried again

    @classmethod
    def of(cls, watched: Sequence[tuple[str, int, int]]) -> TreeStamp:
        paths, sizes, mtimes = zip(*watched, strict=True) if watched else ((), (), ())
        return cls(tuple(paths), tuple(sizes), tuple(mtimes))

    def with_unreadable(self, unreadable: Sequence[str], refused: Sequence[str] = ()) -> TreeStamp:
        """This stamp, naming what could not be read, and the paths to try again."""
        return replace(
            self,
            unreadable=tuple(unreadable[:MAX_UNREADABLE_KEPT]),
            unreadable_count=len(unreadable),
            refused=tuple(refused),
        )

    def refused_opens(self) -> bool:
        """Whether a path the walk was refused can be opened now (a group joined, say)."""
        for path in self.refused:
            try:
                os.close(os.open(path, os.O_RDONLY | _NONBLOCK | _NOFOLLOW))
            except OSError:
                continue
            return True
        return False

    def unchanged(self) -> bool:
        """True when every stamped path still has the size and change time the walk saw."""
        stat = os.stat
        for path, size, mtime in zip(self.paths, self.sizes, self.mtimes, strict=True):
            try:
                info = stat(path, follow_symlinks=False)
            except OSError:
                return False
            # A directory's st_size follows its entries on some file systems; its time says more.
            if info.st_ctime_ns != mtime or (info.st_size != size and not S_ISDIR(info.st_mode)):
                return False
        return not self.refused_opens()


def save_stamp(
    directory: Path,
    key: str,
    generation: str,
    stamp: TreeStamp,
    notices: list[str] | None = None,
) -> None:
    """Keep the stamp beside the index for the next process; a failed write keeps none.

    Anything but a regular file at the stamp's name is moved aside first, said in `notices`.
    """
    path = directory / STAMP_FILE_NAME
    payload = {
        "format": STAMP_FORMAT,
        "key": key,
        "generation": generation,
        "paths": stamp.paths,
        "sizes": stamp.sizes,
        "mtimes": stamp.mtimes,
        "unreadable": stamp.unreadable,
        "unreadable_count": stamp.unreadable_count,
        "refused": stamp.refused,
    }
    try:
        data = json.dumps(payload).encode("ascii")  # non-ASCII, surrogates too, is escaped
        kind = not_regular(path)
        if kind is not None:
            aside = move_aside(path)
            if notices is not None:
                notices.append(
                    f"The walk stamp {path} was {kind}, not a regular file; moved it to {aside} "
                    "and wrote a new one."
                )
        write_atomic(path, data)
    except (OSError, ValueError, UnsafeFile):
        pass


def load_stamp(directory: Path, key: str, generation: str) -> TreeStamp | None:
    """The stamp the last walk of these roots left at this index state, or None.

    Anything unexpected (no file, another format, another key or state, a damaged or
    oversized file, JSON of another shape, a folder, FIFO or link at its name) means None,
    and the caller walks as it would have anyway.
    """
    path = directory / STAMP_FILE_NAME
    try:
        data = read_regular(path, max_bytes=MAX_STAMP_BYTES)
        if data is None:
            return None
        payload = json.loads(data)
        if (
            not isinstance(payload, dict)
            or payload.get("format") != STAMP_FORMAT
            or payload.get("key") != key
            or payload.get("generation") != generation
            or not all(isinstance(payload.get(name), list) for name in STAMP_LISTS)
        ):
            return None
        unreadable = payload.get("unreadable", [])
        count = payload.get("unreadable_count", 0)
        refused = payload.get("refused", [])
        if not isinstance(unreadable, list) or type(count) is not int or count < len(unreadable):
            return None
        if not isinstance(refused, list) or len(refused) > MAX_UNREADABLE_KEPT:
            return None
        stamp = TreeStamp(
            tuple(str(p) for p in payload["paths"]),
            tuple(int(s) for s in payload["sizes"]),
            tuple(int(m) for m in payload["mtimes"]),
            tuple(str(u) for u in unreadable[:MAX_UNREADABLE_KEPT]),
            count,
            tuple(str(r) for r in refused),
        )
    except (UnsafeFile, ValueError, TypeError, RecursionError):
        return None
    if not len(stamp.paths) == len(stamp.sizes) == len(stamp.mtimes):
        return None
    return stamp
