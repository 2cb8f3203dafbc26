"""The walk: which files of a workspace (and its extra source roots) are indexed.

Ignore rules are `wherein.ignore_rules`'s; a file is read by `wherein.source_files`.
Symlinks are never followed, so a link out of the tree cannot index the machine and a link
loop cannot hang the walk. The tree is a clone's, so it may be hostile: every
folder is opened without following a link and checked against its parent's
listing, every file is opened one folder at a time from its root, and an ignore
file is read only if it is a small regular file; so a folder swapped for a link
mid-run leads nowhere outside, and `.gitignore -> /dev/zero` is one warning.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from wherein.errors import NoSuchWorkspace, WorkspaceError
from wherein.ignore_rules import IGNORE_FILE_NAMES, IgnoreRules, read_control_file, read_git_exclude
from wherein.source_files import (
    FOLDER_FLAGS,
    ROOT_FLAGS,
    SourceSkipped,
    SourceText,
    is_regular_file,
    read_source,
)
from wherein.untrusted import one_line
from wherein.walk_records import FileEntry, Root, WalkReport, is_refusal, note_unreadable

__all__ = [
    "SKIPPED_DIRS",
    "VERSION_CONTROL_DIRS",
    "FileEntry",
    "Root",
    "SourceSkipped",
    "SourceText",
    "WalkReport",
    "display_name",
    "read_source",
    "resolve_workspace",
    "walk_root",
]

# Directories that hold tooling state or build output, never source to search.
# Version control's own folders: a repository's settings (remote URLs with their tokens,
# hooks), never code; no walk enters one and no source root may be one (`wherein.roots`).
VERSION_CONTROL_DIRS = frozenset({".git", ".hg", ".svn"})
SKIPPED_DIRS = VERSION_CONTROL_DIRS | frozenset(
    {
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
        ".eggs",
        "build",
        "dist",
        "target",
        ".next",
        ".gradle",
        ".idea",
        ".terraform",
        # Installed third-party code: a project's libraries are indexed as extra source
        # roots (scope.source_roots), under their own label, never by accident.
        "site-packages",
        "dist-packages",
    }
)
# Packaging metadata beside installed code: RECORD hash lists, METADATA copies of a README.
# In a site-packages root: 477 files, 3,233 chunks of noise (scripts/measure_roots.py).
METADATA_DIR_SUFFIXES = (".dist-info", ".egg-info")
REPLACED = "replaced during the walk"


def resolve_workspace(path: str | os.PathLike[str] | None) -> Path:
    """The absolute workspace directory, or a clear error if it cannot be one.

    Raises:
        NoSuchWorkspace: `path` names nothing, or a file (a usage error).
        WorkspaceError: the folder cannot be opened, or the current one is gone.
    """
    candidate = Path(path if path is not None else os.getcwd()).expanduser()
    missing = WorkspaceError if path is None else NoSuchWorkspace
    try:
        resolved = candidate.resolve(strict=True)
    except FileNotFoundError as err:
        raise missing(
            f"Workspace {candidate} does not exist. Pass an existing directory with --workspace."
        ) from err
    except (OSError, RuntimeError) as err:
        raise WorkspaceError(f"Workspace {candidate} cannot be opened: {err}.") from err
    if not resolved.is_dir():
        raise missing(
            f"Workspace {candidate} is not a directory. Pass a directory with --workspace."
        )
    return resolved


def display_name(name: str) -> str:
    """A file name as valid UTF-8 text: undecodable bytes become `\\xNN` escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def _watch_entry(watched: list, path: str, entry: os.DirEntry) -> None:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return
    watched.append((path, info.st_size, info.st_ctime_ns))


def _open_folder(path: str, expected: tuple[int, int] | None) -> tuple[int, os.stat_result]:
    """An open descriptor of the folder at `path` and its stat.

    Below the root, `expected` is the (st_dev, st_ino) the parent's listing showed: a folder
    swapped for a link (or anything else) since then is refused, so the walk never lists a
    tree outside the root.

    Raises:
        OSError: it cannot be opened, or it was replaced (`strerror` REPLACED).
    """
    try:
        fd = os.open(path, ROOT_FLAGS if expected is None else FOLDER_FLAGS)
    except OSError as err:
        if expected is not None and err.errno in (errno.ENOTDIR, errno.ELOOP):
            raise OSError(err.errno, REPLACED) from err  # a link or a file now
        raise
    try:
        info = os.fstat(fd)
        if expected is not None and (info.st_dev, info.st_ino) != expected:
            raise OSError(errno.ESTALE, REPLACED)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def walk_root(root: Root, max_file_bytes: int, report: WalkReport) -> Iterator[FileEntry]:
    """Yield the files of `root` that may be indexed, in a stable order.

    The root itself is entered whatever it is called; below it the skip list and
    the ignore files apply. Nothing here reads file contents. Folders are listed
    depth first from an explicit stack (a tree deeper than Python's recursion limit
    is still walked), each through a descriptor checked against its parent's listing.
    """
    if root.files is not None:
        from wherein.packages.files import walk_listed  # builds on FileEntry: imported here

        yield from walk_listed(root, max_file_bytes, report)
        return
    rules = IgnoreRules()
    exclude = read_git_exclude(root, report)
    if exclude:
        rules = rules.with_files(b"", [(root.display(".git/info/exclude"), exclude)], report)
    # (path, rel, rel in the bytes of its names, rules that apply, (st_dev, st_ino) the
    # parent's listing showed)
    stack: list[tuple[str, str, bytes, IgnoreRules, tuple[int, int] | None]] = [
        (str(root.path), "", b"", rules, None)
    ]
    while stack:
        directory, rel_dir, raw_dir, rules, expected = stack.pop()
        files, subdirs = _list_folder(
            root, directory, (rel_dir, raw_dir), rules, expected, max_file_bytes, report
        )
        yield from files
        stack.extend(reversed(subdirs))


def _list_folder(
    root: Root,
    directory: str,
    rels: tuple[str, bytes],
    rules: IgnoreRules,
    expected: tuple[int, int] | None,
    max_file_bytes: int,
    report: WalkReport,
) -> tuple[list[FileEntry], list[tuple[str, str, bytes, IgnoreRules, tuple[int, int]]]]:
    """The files of one folder to yield, and its subfolders to walk, in name order.

    `rels` is the folder's path from the root as shown and in the bytes of its names: ignore
    rules match bytes, as git's do."""
    rel_dir, raw_dir = rels
    shown_dir = f"{root.display(rel_dir) or '.'}/"
    try:
        fd, info = _open_folder(directory, expected)
    except OSError as err:
        note_unreadable(report, shown_dir, err, directory)
        if is_refusal(err):  # stamped by its change time, which a chmod moves
            with contextlib.suppress(OSError):
                shut = os.stat(directory, follow_symlinks=False)
                report.watched.append((directory, shut.st_size, shut.st_ctime_ns))
        return [], []
    try:
        report.watched.append((directory, info.st_size, info.st_ctime_ns))
        try:
            with os.scandir(fd) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            note_unreadable(report, shown_dir, err, directory)
            return [], []
        ignore_files = []
        for entry in entries:
            if entry.name in IGNORE_FILE_NAMES:
                path = os.path.join(directory, entry.name)
                _watch_entry(report.watched, path, entry)
                shown = root.display(f"{rel_dir}/{entry.name}" if rel_dir else entry.name)
                ignore_files.append((shown, read_control_file(fd, entry.name, shown, report)))
        rules = rules.with_files(raw_dir, ignore_files, report)
        files: list[FileEntry] = []
        subdirs = []
        # A name that is not UTF-8 is shown with `\xNN` escapes, as is a control or invisible
        # character in one when results are shown (`untrusted.one_line`), and a name written
        # with those very escapes shows the same: of two names that show alike, the one that
        # shows as it is (else the first) is kept and the other reported. (The index keys
        # files by the UTF-8 name: two rows with one key failed the whole refresh.)
        named = [(entry, display_name(entry.name)) for entry in entries]
        shown = [name if name.isprintable() else one_line(name) for _, name in named]
        shown_names = {
            seen for (entry, _), seen in zip(named, shown, strict=True) if seen == entry.name
        }
        for (entry, name), seen in zip(named, shown, strict=True):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if seen != entry.name:
                if seen in shown_names:
                    report.unreadable.append(
                        f"{root.display(rel)} (shown as another entry of its folder is named: "
                        "rename one of them)"
                    )
                    continue
                shown_names.add(seen)
            raw = raw_dir + b"/" + os.fsencode(entry.name) if raw_dir else os.fsencode(entry.name)
            path = os.path.join(directory, entry.name)
            try:
                if entry.is_symlink():
                    report.symlinks += 1
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError as err:
                note_unreadable(report, root.display(rel), err, path)
                continue
            if stat.S_ISDIR(info.st_mode):
                if (
                    entry.name in SKIPPED_DIRS
                    or entry.name.endswith(METADATA_DIR_SUFFIXES)
                    or rel in root.inner
                    or _is_virtualenv(path)
                ):
                    continue
                if not rules.ignored(raw, is_dir=True):
                    subdirs.append((path, rel, raw, rules, (info.st_dev, info.st_ino)))
                continue
            if not stat.S_ISREG(info.st_mode) or entry.name in IGNORE_FILE_NAMES:
                continue
            if rules.ignored(raw, is_dir=False):
                continue
            if info.st_size > max_file_bytes:
                report.too_large += 1
                report.watched.append((path, info.st_size, info.st_ctime_ns))
                continue
            files.append(FileEntry(root, rel, Path(path), info.st_size, info.st_ctime_ns))
    finally:
        os.close(fd)
    return files, subdirs


def _is_virtualenv(path: str) -> bool:
    return is_regular_file(os.path.join(path, "pyvenv.cfg"))
