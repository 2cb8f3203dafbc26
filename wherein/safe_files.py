"""Reading and writing files a repository may have planted: no links, no devices, bounded.

A clone can ship `.gitignore -> /dev/zero`, `.wherein.toml -> ~/.ssh/config`, a FIFO where a
source file was, or a `.wherein.toml.tmp` symlink waiting for the next write. Git itself opens
`.gitignore` and friends with `O_NOFOLLOW` (git 2.32, "ignoring .gitignore, as it is a symbolic
link"); these helpers do the same for every control file and ledger wherein reads, and write
through a fresh temporary file so that no planted name is ever opened for writing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "CONTROL_FILE_MAX_BYTES",
    "UnsafeFile",
    "not_regular",
    "open_regular",
    "read_regular",
    "write_atomic",
]

# Control files (.wherein.toml, ignore files) are a few KB; 1 MiB is generous and bounded.
CONTROL_FILE_MAX_BYTES = 1 << 20

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class UnsafeFile(Exception):  # noqa: N818 - a reason to skip a file, not a failure of ours
    """The file is a link, not a regular file, too large or unreadable; `str()` says which."""


def read_regular(
    path: Path | str, *, max_bytes: int, follow_links: bool = False, dir_fd: int | None = None
) -> bytes | None:
    """The bytes of the regular file at `path`; None when nothing is there.

    Opened with `O_NONBLOCK` (a FIFO cannot hang the open) and, unless `follow_links`, with
    `O_NOFOLLOW`; the opened descriptor is checked with `fstat`, so a file swapped between a
    check and the open is judged by what was opened. With `dir_fd`, `path` is relative to that
    open folder, so no link in the folders above it is followed either.

    Raises:
        UnsafeFile: a symbolic link, a FIFO, device or folder, larger than `max_bytes`, or
            unreadable; the message names which, never the contents.
    """
    handle = open_regular(path, max_bytes=max_bytes, follow_links=follow_links, dir_fd=dir_fd)
    if handle is None:
        return None
    with handle:
        parts: list[bytes] = []
        total = 0
        try:
            while True:  # read to the end, not to st_size: the file may grow while it is read
                block = handle.read(min(1 << 20, max_bytes + 1 - total))
                if not block:
                    break
                total += len(block)
                if total > max_bytes:
                    raise UnsafeFile(f"it is larger than {max_bytes:,} bytes")
                parts.append(block)
        except OSError as err:
            raise UnsafeFile(f"it cannot be read ({err.strerror or err})") from err
    return b"".join(parts)


def open_regular(
    path: Path | str,
    *,
    max_bytes: int,
    follow_links: bool = False,
    dir_fd: int | None = None,
    buffering: int = -1,
) -> BinaryIO | None:
    """The regular file at `path`, open for reading; None when nothing is there.

    For a reader that maps or parses the file itself (a memory-mapped array), and the open
    behind `read_regular`: the open and `fstat` checks described there, no contents read.
    `buffering` is `open`'s (a line reader goes faster with a larger buffer).

    Raises:
        UnsafeFile: as `read_regular`.
    """
    flags = os.O_RDONLY | _NONBLOCK | (0 if follow_links else _NOFOLLOW)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as err:
        if not follow_links and _is_link(path, dir_fd):
            raise UnsafeFile("it is a symbolic link") from err
        raise UnsafeFile(f"it cannot be read ({err.strerror or err})") from err
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"it is not a regular file ({_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise UnsafeFile(f"it is larger than {max_bytes:,} bytes")
    except BaseException as err:
        os.close(fd)
        if isinstance(err, OSError):
            raise UnsafeFile(f"it cannot be read ({err.strerror or err})") from err
        raise
    return os.fdopen(fd, "rb", buffering=buffering)


def not_regular(path: Path) -> str | None:
    """What is at `path` when it is not a regular file ("a folder", "a FIFO", ...), else None.

    A link is not followed, and None also means nothing is there: for a caller that must
    not open what it finds (SQLite follows links and opens a FIFO) and moves it aside.
    """
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # a file where a folder on the way is
        return None
    return None if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)


def write_atomic(
    path: Path,
    data: bytes,
    *,
    durable: bool = True,
    new_mode: int | None = None,
    make_folders: bool = True,
) -> None:
    """Replace `path` with `data`, never writing through a link planted at or beside it.

    The data goes to a new file with a random name in the same folder (`mkstemp` opens it with
    `O_CREAT | O_EXCL`, so an existing name, link or not, is never reused), is flushed (to
    the disk too, unless not `durable`: a cache that may be lost), and is renamed over
    `path`. A `path` that is a symbolic link or not a regular file is refused:
    replacing it would silently change what the link's owner meant. A file replaced keeps its
    mode; a new one gets `new_mode`, or mkstemp's 0600. Without `make_folders`, a missing
    folder is an error rather than made.

    Raises:
        UnsafeFile: `path` is a link or not a regular file.
        OSError: the folder cannot be written.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"it is {_kind(info.st_mode)}, not a regular file")
    import tempfile  # here, not above: a status-line refresh that writes nothing never needs it

    if make_folders:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if info is not None:
            os.chmod(tmp, stat.S_IMODE(info.st_mode))
        elif new_mode is not None:
            os.chmod(tmp, new_mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _is_link(path: Path | str, dir_fd: int | None = None) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
