"""Reading one walked file: opened a folder at a time from its root, following no link.

The tree is a clone's, so it may be hostile: a folder swapped for a link after the walk
cannot lead the read out of the tree, and a FIFO or device swapped in for a file is opened
without blocking and skipped.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from wherein.walk_records import FileEntry

__all__ = [
    "BYTE_ORDER_MARK",
    "FILE_FLAGS",
    "FOLDER_FLAGS",
    "ROOT_FLAGS",
    "SourceSkipped",
    "SourceText",
    "is_regular_file",
    "read_source",
]

# git's own rule for "is this binary": a NUL byte in the first 8 KiB.
BINARY_SNIFF_BYTES = 8192
BYTE_ORDER_MARK = "\ufeff"
FOLDER_REPLACED = "a folder on its path was replaced during the run"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# A root is a configured, resolved path: opened as given. Below it no link is followed, and
# a FIFO swapped in for a file cannot block the open.
ROOT_FLAGS = os.O_RDONLY | _DIRECTORY
FOLDER_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW
FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True)
class SourceText:
    """A file's decoded text and the hash of its bytes."""

    text: str
    sha256: str
    size: int
    mtime_ns: int
    had_invalid_utf8: bool


@dataclass(frozen=True)
class SourceSkipped:
    """Why a walked file was not read: `reason` is one of `SKIP_REASONS`.

    "binary" and "too_large" are remembered as skipped, so an unchanged file is not read
    again; "vanished" and "unreadable" write nothing. `detail` is the system's words for
    an unreadable file ("Permission denied"), "" otherwise.
    """

    reason: str
    detail: str = ""

    @property
    def remembered(self) -> bool:
        """The index records the file as skipped ("binary", "too_large")."""
        return self.reason in REMEMBERED_REASONS


REMEMBERED_REASONS = frozenset({"binary", "too_large"})
SKIP_REASONS = REMEMBERED_REASONS | {"vanished", "unreadable"}


def is_regular_file(path: str | Path) -> bool:
    """`Path.is_file`, but False on EACCES too: pathlib re-raises it, and an unreadable
    directory must be reported by the walk, not end it."""
    try:
        return stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_below(root: Path, path: Path) -> int:
    """`path` opened for reading one component at a time from `root`, following no link:
    a folder swapped for a link after the walk cannot lead the read out of the tree.

    Raises:
        OSError: as `os.open`; `strerror` says so when a folder on the way was replaced.
    """
    *folders, name = path.relative_to(root).parts
    fd = os.open(root, ROOT_FLAGS)
    try:
        for folder in folders:
            try:
                inner = os.open(folder, FOLDER_FLAGS, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ENOTDIR, errno.ELOOP):  # now a link or a file
                    raise OSError(err.errno, FOLDER_REPLACED) from err
                raise
            os.close(fd)
            fd = inner
        return os.open(name, FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def read_source(entry: FileEntry, max_file_bytes: int) -> SourceText | SourceSkipped:
    """Read and hash a file; return its text, or the reason it is skipped.

    Reasons: "binary", "too_large", "vanished", "unreadable" (with the system's words).
    A file that changes while it is read is hashed as read and stamped with an mtime that
    cannot match, so the next refresh reads it again. A FIFO or device swapped in
    after the walk is opened without blocking and skipped as "vanished".
    """
    try:
        fd = _open_below(entry.root.path, entry.path)
    except FileNotFoundError:
        return SourceSkipped("vanished")
    except OSError as err:
        return SourceSkipped("unreadable", str(err.strerror or err))
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            return SourceSkipped("vanished")
        chunks = []
        total = 0
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            total += len(block)
            if total > max_file_bytes:
                return SourceSkipped("too_large")
            chunks.append(block)
        after = os.fstat(fd)
    except OSError as err:
        return SourceSkipped("unreadable", str(err.strerror or err))
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return SourceSkipped("binary")
    mtime_ns = after.st_ctime_ns  # the change time: `FileEntry.mtime_ns` says why
    if after.st_ctime_ns != before.st_ctime_ns or after.st_size != len(data):
        mtime_ns = -1  # changed while reading: never matches the stat fast path
    try:
        text = data.decode("utf-8")
        invalid = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        invalid = True
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    # A byte-order mark says how the file is encoded, and is no part of its first line.
    text = text.removeprefix(BYTE_ORDER_MARK)
    return SourceText(text, hashlib.sha256(data).hexdigest(), len(data), mtime_ns, invalid)
