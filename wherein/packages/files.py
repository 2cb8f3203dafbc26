"""The walk of a package root: the files its distribution lists, not the folder around them.

A site-packages holds every distribution of the environment (77,000 chunks for this project's
own); a package root names one of them, so only the files its `RECORD` (or its npm folder)
lists are walked. Each is looked at with `lstat`: a link is passed over as the folder walk
passes it over, and the read that follows opens one folder at a time from the root without
following a link (`workspace.read_source`), so a planted `RECORD` entry cannot lead outside.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from wherein.walk_records import FileEntry, Root, WalkReport

__all__ = ["is_plain_relative", "list_folder_files", "walk_listed"]

# Folders inside a package that hold no code of its own (a nested install, byte code).
SKIPPED_PACKAGE_DIRS = frozenset({"node_modules", "__pycache__"})


def is_plain_relative(rel: str) -> bool:
    """Whether `rel` is a '/'-separated path below a root: not absolute, no `..`, no NUL."""
    if not rel or "\0" in rel or rel.startswith("/") or "\\" in rel:
        return False
    return all(part not in ("", ".", "..") for part in PurePosixPath(rel).parts)


def list_folder_files(folder: Path, limit: int) -> list[str]:
    """The regular files below `folder` ('/'-separated), links not followed, at most `limit`:
    a package's own folder, without nested installs or hidden folders. Unlike the workspace
    walk, `dist` and `build` are kept: an npm package's code is often only in `dist`."""
    found: list[str] = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_PACKAGE_DIRS
            and not d.startswith(".")
            and not os.path.islink(os.path.join(top, d))
        )
        rel_top = os.path.relpath(top, folder)
        for name in sorted(names):
            if os.path.islink(os.path.join(top, name)):
                continue
            found.append(name if rel_top == "." else f"{rel_top}/{name}".replace(os.sep, "/"))
            if len(found) >= limit:
                return found
    return found


def walk_listed(root: Root, max_file_bytes: int, report: WalkReport) -> Iterator[FileEntry]:
    """Yield the regular files of `root.files` that exist, in a stable order."""
    for rel in sorted(set(root.files or ())):
        if not is_plain_relative(rel):
            continue
        path = root.path / rel
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue  # listed but not installed (a RECORD may name a removed file)
        except OSError as err:
            report.unreadable.append(f"{root.display(rel)} ({err.strerror or err})")
            report.passing_unreadable += 1  # its folders are in no stamp: walk again
            continue
        if stat.S_ISLNK(info.st_mode):
            report.symlinks += 1
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        if info.st_size > max_file_bytes:
            report.too_large += 1
            report.watched.append((str(path), info.st_size, info.st_ctime_ns))
            continue
        yield FileEntry(root, rel, path, info.st_size, info.st_ctime_ns)
