"""Moving a damaged file under the data home out of the way, never deleting it.

Everything wherein writes under its data home is derived (an index from the repository,
a cache from the index), so damage costs a rebuild, not a repair by hand. But what sits
at one of those names may not be ours (a folder someone made, a link, a file from
another program), so it is renamed beside itself as `<name>.broken-<time>` and the
message says where; nothing is removed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

from wherein.safe_files import not_regular

__all__ = ["ASIDE_MARK", "SQLITE_SUFFIXES", "database_not_regular", "move_aside"]

ASIDE_MARK = ".broken-"
# The files of one SQLite database in WAL mode: judged and moved aside together.
SQLITE_SUFFIXES = ("", "-wal", "-shm")
# Numbered names tried in one second before giving up (a loop that renames damage forever).
MAX_NUMBER = 1000


def move_aside(path: Path, suffixes: Sequence[str] = ("",)) -> Path:
    """Rename `path` + each suffix to `<name>.broken-<time>` + suffix; returns that name.

    SQLite's `-wal` and `-shm` files go with their database, under the same new stem. A
    name already gone is skipped (another process moved it first). The new names are
    reserved with `O_EXCL` (or `mkdir` for a folder) before the rename, so two processes,
    or two damaged files in one second, never move one over the other.

    Raises:
        OSError: the folder cannot be written.
    """
    present = [s for s in suffixes if os.path.lexists(f"{path}{s}")]
    stem = f"{path.name}{ASIDE_MARK}{int(time.time())}"
    for number in range(1, MAX_NUMBER + 1):
        aside = path.with_name(stem if number == 1 else f"{stem}-{number}")
        reserved = _reserve_all(path, aside, present)
        if reserved is None:
            continue
        for suffix in present:
            try:
                os.replace(f"{path}{suffix}", f"{aside}{suffix}")
            except FileNotFoundError:  # moved by another process meanwhile: drop our placeholder
                _release(Path(f"{aside}{suffix}"))
        return aside
    raise FileExistsError(f"{MAX_NUMBER} files named {stem}-* exist already")


def database_not_regular(path: Path) -> str | None:
    """Why the SQLite files at `path` cannot be opened safely ("index.db-wal is a folder, not
    a regular file"), or None when the database, its `-wal` and its `-shm` are each a regular
    file or absent. SQLite follows a link and opens a FIFO, so this is asked first."""
    for suffix in SQLITE_SUFFIXES:
        kind = not_regular(Path(f"{path}{suffix}"))
        if kind is not None:
            return f"{path.name}{suffix} is {kind}, not a regular file"
    return None


def _reserve_all(path: Path, aside: Path, suffixes: Sequence[str]) -> list[Path] | None:
    """Claim `aside` + each suffix with an empty placeholder of the kind to be moved there."""
    reserved: list[Path] = []
    for suffix in suffixes:
        target = Path(f"{aside}{suffix}")
        folder = os.path.isdir(f"{path}{suffix}") and not os.path.islink(f"{path}{suffix}")
        try:
            if folder:
                target.mkdir()  # rename() may replace an empty folder, and only that
            else:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            for placeholder in reserved:
                _release(placeholder)
            return None
        reserved.append(target)
    return reserved


def _release(placeholder: Path) -> None:
    with contextlib.suppress(OSError):
        if placeholder.is_dir() and not placeholder.is_symlink():
            placeholder.rmdir()  # only ever empty: our own placeholder
        else:
            placeholder.unlink()
