"""The walk: which files of a workspace (and its extra source roots) are indexed.

Ignore rules come from nested `.gitignore` files, `.git/info/exclude` and
`.whereinignore`, matched the way git matches them (`wherein.gitignore`, in time linear in
name x pattern whatever a planted line says). Symlinks are
never followed, so a link out of the tree cannot index the machine and a link
loop cannot hang the walk. The tree is a clone's, so it may be hostile: every
folder is opened without following a link and checked against its parent's
listing, every file is opened one folder at a time from its root, and an ignore
file is read only if it is a small regular file; so a folder swapped for a link
mid-run leads nowhere outside, and `.gitignore -> /dev/zero` is one warning.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from wherein.errors import NoSuchWorkspace, WorkspaceError
from wherein.gitignore import (
    MAX_LINE_WILDCARDS,
    MAX_WILDCARD_LINES,
    IgnoreList,
    TooManyWildcards,
    Unmatchable,
    compile_rule,
    ignore_file_lines,
    is_wildcard_line,
)
from wherein.safe_files import CONTROL_FILE_MAX_BYTES, UnsafeFile, read_regular

__all__ = [
    "SKIPPED_DIRS",
    "FileEntry",
    "Root",
    "SourceText",
    "WalkReport",
    "read_source",
    "resolve_workspace",
    "walk_root",
    "workspace_roots",
]

# Directories that hold tooling state or build output, never source to search.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
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
IGNORE_FILE_NAMES = (".gitignore", ".whereinignore")
# git's own rule for "is this binary": a NUL byte in the first 8 KiB.
BINARY_SNIFF_BYTES = 8192
# Warnings one walk keeps: a planted tree of bad ignore files must not flood every answer.
MAX_WALK_WARNINGS = 20
REPLACED = "replaced during the walk"
FOLDER_REPLACED = "a folder on its path was replaced during the run"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# A root is a configured, resolved path: opened as given. Below it no link is followed, and
# a FIFO swapped in for a file cannot block the open.
_ROOT_FLAGS = os.O_RDONLY | _DIRECTORY
_FOLDER_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True)
class Root:
    """A tree to index: the workspace itself (label "") or an extra source root."""

    path: Path
    label: str = ""
    # A package root's own files ('/'-separated, relative to `path`), walked instead of the
    # folder: a distribution's RECORD, not the whole site-packages (`wherein.packages`).
    files: tuple[str, ...] | None = None

    def display(self, rel: str) -> str:
        """The result path: relative to the workspace, or `label/relative` for extra roots."""
        return f"{self.label}/{rel}" if self.label else rel


@dataclass(frozen=True)
class FileEntry:
    """One candidate file found by the walk, before it is read."""

    root: Root
    rel: str  # '/'-separated, relative to the root; undecodable bytes escaped
    path: Path  # the real filesystem path
    size: int
    mtime_ns: int

    @property
    def display_path(self) -> str:
        return self.root.display(self.rel)


@dataclass
class WalkReport:
    """What the walk passed over, so the summary can say so."""

    too_large: int = 0
    symlinks: int = 0
    unreadable: list[str] = field(default_factory=list)
    # One sentence each for an ignore file or line passed over, for the user to fix.
    warnings: list[str] = field(default_factory=list)
    # (path, size, mtime_ns) of every directory entered and ignore file read: a later stat
    # of these and of the files walked tells whether a new walk could find anything new.
    watched: list[tuple[str, int, int]] = field(default_factory=list)

    def warn(self, text: str) -> None:
        """Keep `text`, up to MAX_WALK_WARNINGS, then one line saying there is more."""
        if len(self.warnings) < MAX_WALK_WARNINGS:
            self.warnings.append(text)
        elif len(self.warnings) == MAX_WALK_WARNINGS:
            self.warnings.append(
                "More ignore files or lines were skipped; fix those named above to see the rest."
            )


@dataclass(frozen=True)
class SourceText:
    """A file's decoded text and the hash of its bytes."""

    text: str
    sha256: str
    size: int
    mtime_ns: int
    had_invalid_utf8: bool


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


def workspace_roots(workspace: Path, settings, focus: str | None = None) -> list[Root]:
    """The workspace root first, then the usable extra source roots (`wherein.roots`)."""
    from wherein.roots import plan_roots  # roots.py builds on Root: import here, not at the top

    return list(plan_roots(workspace, settings["scope.source_roots"], focus).roots)


def display_name(name: str) -> str:
    """A file name as valid UTF-8 text: undecodable bytes become `\\xNN` escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", errors="backslashreplace")


class _IgnoreRules:
    """The stack of ignore files that apply below one directory."""

    def __init__(self, layers: tuple[tuple[bytes, IgnoreList], ...] = ()) -> None:
        self.layers = layers
        # Wildcard lines that apply here, against MAX_WILDCARD_LINES.
        self.wildcards = sum(rules.wildcards for _, rules in layers)

    def with_files(
        self, rel_dir: bytes, files: list[tuple[str, list[str]]], report: WalkReport
    ) -> _IgnoreRules:
        """These rules plus those of `files` ((shown name, lines) of a folder's ignore files);
        `rel_dir` is the folder's path from the root in the bytes of its names."""
        if not any(lines for _, lines in files):
            return self
        rules = _ignore_list(files, MAX_WILDCARD_LINES - self.wildcards, report)
        return _IgnoreRules((*self.layers, (rel_dir, rules)))

    def ignored(self, rel: bytes, is_dir: bool) -> bool:
        """Whether `rel` (bytes, from the root) is ignored: as in git, the deepest folder's
        files first, the last line of them that matches deciding."""
        for base, rules in reversed(self.layers):
            verdict = rules.verdict(rel[len(base) + 1 :] if base else rel, is_dir)
            if verdict is not None:
                return verdict
        return False


def _ignore_list(files: list[tuple[str, list[str]]], room: int, report: WalkReport) -> IgnoreList:
    """One folder's ignore rules, with at most `room` wildcard lines. A line git keeps but
    that can match no path (`!`, a lone `\\`, `foo\\`) is skipped with a warning naming it,
    and so is a line past a cap (`wherein.gitignore`); the other lines still apply."""
    rules = []
    for shown, lines in files:
        capped = False
        for number, line in enumerate(lines, 1):
            if room <= 0 and is_wildcard_line(line):
                if not capped:
                    capped = True
                    report.warn(
                        f"Skipped line {number} of {shown} ({_quoted(line)}) and the wildcard "
                        f"lines after it: more than {MAX_WILDCARD_LINES:,} wildcard lines "
                        "apply to this folder; write the rest as literal names or `*.ext` "
                        "lines, which have no limit."
                    )
                continue
            try:
                rule = compile_rule(line)
            except Unmatchable:
                report.warn(
                    f"Skipped line {number} of {shown} ({_quoted(line)}): wherein cannot "
                    "match it; fix or remove the line."
                )
                continue
            except TooManyWildcards:
                report.warn(
                    f"Skipped line {number} of {shown} ({_quoted(line)}): it has more than "
                    f"{MAX_LINE_WILDCARDS} `*` wildcards; split it into simpler lines."
                )
                continue
            if rule is not None:
                rules.append(rule)
                room -= rule.glob is not None
    return IgnoreList(rules)


def _quoted(line: str) -> str:
    """The line as Python writes it, cut to its first 80 characters: a planted line may be
    a megabyte long."""
    if len(line) <= 80:
        return repr(line)
    return f"{line[:80]!r}... ({len(line):,} characters)"


def _read_control_file(dir_fd: int, name: str, shown: str, report: WalkReport) -> list[str]:
    """The lines of the ignore file `name` in the open folder `dir_fd`; [] for one that is a
    link, a device, a FIFO, too large or unreadable, with one warning naming it (as git says
    "ignoring .gitignore, as it is a symbolic link")."""
    try:
        data = read_regular(name, max_bytes=CONTROL_FILE_MAX_BYTES, dir_fd=dir_fd)
    except UnsafeFile as why:
        report.warn(
            f"Ignored {shown}: {why}; its rules apply once it is a regular file of at most "
            f"{CONTROL_FILE_MAX_BYTES >> 20} MiB."
        )
        return []
    return [] if data is None else ignore_file_lines(data)


def _watch_entry(watched: list, path: str, entry: os.DirEntry) -> None:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return
    watched.append((path, info.st_size, info.st_mtime_ns))


def _open_folder(path: str, expected: tuple[int, int] | None) -> tuple[int, os.stat_result]:
    """An open descriptor of the folder at `path` and its stat.

    Below the root, `expected` is the (st_dev, st_ino) the parent's listing showed: a folder
    swapped for a link (or anything else) since then is refused, so the walk never lists a
    tree outside the root.

    Raises:
        OSError: it cannot be opened, or it was replaced (`strerror` REPLACED).
    """
    try:
        fd = os.open(path, _ROOT_FLAGS if expected is None else _FOLDER_FLAGS)
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
    rules = _IgnoreRules()
    exclude = _git_exclude(root, report)
    if exclude:
        rules = rules.with_files(b"", [(root.display(".git/info/exclude"), exclude)], report)
    # (path, rel, rel in the bytes of its names, rules that apply, (st_dev, st_ino) the
    # parent's listing showed)
    stack: list[tuple[str, str, bytes, _IgnoreRules, tuple[int, int] | None]] = [
        (str(root.path), "", b"", rules, None)
    ]
    while stack:
        directory, rel_dir, raw_dir, rules, expected = stack.pop()
        files, subdirs = _list_folder(
            root, directory, (rel_dir, raw_dir), rules, expected, max_file_bytes, report
        )
        yield from files
        stack.extend(reversed(subdirs))


def _git_exclude(root: Root, report: WalkReport) -> list[str]:
    """The lines of the root's `.git/info/exclude`; [] without one (or with `.git` a file,
    as in a worktree)."""
    try:
        fd = os.open(root.path, _ROOT_FLAGS)
    except OSError:
        return []  # the walk reports the root itself
    try:
        for name in (".git", "info"):
            inner = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        return _read_control_file(fd, "exclude", root.display(".git/info/exclude"), report)
    except OSError:
        return []
    finally:
        os.close(fd)


def _list_folder(
    root: Root,
    directory: str,
    rels: tuple[str, bytes],
    rules: _IgnoreRules,
    expected: tuple[int, int] | None,
    max_file_bytes: int,
    report: WalkReport,
) -> tuple[list[FileEntry], list[tuple[str, str, bytes, _IgnoreRules, tuple[int, int]]]]:
    """The files of one folder to yield, and its subfolders to walk, in name order.

    `rels` is the folder's path from the root as shown and in the bytes of its names: ignore
    rules match bytes, as git's do."""
    rel_dir, raw_dir = rels
    shown_dir = f"{root.display(rel_dir) or '.'}/"
    try:
        fd, info = _open_folder(directory, expected)
    except OSError as err:
        report.unreadable.append(f"{shown_dir} ({err.strerror or err})")
        return [], []
    try:
        report.watched.append((directory, info.st_size, info.st_mtime_ns))
        try:
            with os.scandir(fd) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            report.unreadable.append(f"{shown_dir} ({err.strerror or err})")
            return [], []
        ignore_files = []
        for entry in entries:
            if entry.name in IGNORE_FILE_NAMES:
                path = os.path.join(directory, entry.name)
                _watch_entry(report.watched, path, entry)
                shown = root.display(f"{rel_dir}/{entry.name}" if rel_dir else entry.name)
                ignore_files.append((shown, _read_control_file(fd, entry.name, shown, report)))
        rules = rules.with_files(raw_dir, ignore_files, report)
        files: list[FileEntry] = []
        subdirs = []
        for entry in entries:
            name = display_name(entry.name)
            rel = f"{rel_dir}/{name}" if rel_dir else name
            raw = raw_dir + b"/" + os.fsencode(entry.name) if raw_dir else os.fsencode(entry.name)
            try:
                if entry.is_symlink():
                    report.symlinks += 1
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError as err:
                report.unreadable.append(f"{root.display(rel)} ({err.strerror or err})")
                continue
            path = os.path.join(directory, entry.name)
            if stat.S_ISDIR(info.st_mode):
                if (
                    entry.name in SKIPPED_DIRS
                    or entry.name.endswith(METADATA_DIR_SUFFIXES)
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
                report.watched.append((path, info.st_size, info.st_mtime_ns))
                continue
            files.append(FileEntry(root, rel, Path(path), info.st_size, info.st_mtime_ns))
    finally:
        os.close(fd)
    return files, subdirs


def _is_virtualenv(path: str) -> bool:
    return _is_file(os.path.join(path, "pyvenv.cfg"))


def _is_file(path: str | Path) -> bool:
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
    fd = os.open(root, _ROOT_FLAGS)
    try:
        for folder in folders:
            try:
                inner = os.open(folder, _FOLDER_FLAGS, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ENOTDIR, errno.ELOOP):  # now a link or a file
                    raise OSError(err.errno, FOLDER_REPLACED) from err
                raise
            os.close(fd)
            fd = inner
        return os.open(name, _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def read_source(entry: FileEntry, max_file_bytes: int) -> SourceText | str:
    """Read and hash a file; return its text, or the reason it is skipped.

    Reasons: "binary", "too_large", "vanished", "unreadable: ...". A file that
    changes while it is read is hashed as read and stamped with an mtime that
    cannot match, so the next refresh reads it again. A FIFO or device swapped in
    after the walk is opened without blocking and skipped as "vanished".
    """
    try:
        fd = _open_below(entry.root.path, entry.path)
    except FileNotFoundError:
        return "vanished"
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            return "vanished"
        chunks = []
        total = 0
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            total += len(block)
            if total > max_file_bytes:
                return "too_large"
            chunks.append(block)
        after = os.fstat(fd)
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "binary"
    mtime_ns = after.st_mtime_ns
    if after.st_mtime_ns != before.st_mtime_ns or after.st_size != len(data):
        mtime_ns = -1  # changed while reading: never matches the stat fast path
    try:
        text = data.decode("utf-8")
        invalid = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        invalid = True
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return SourceText(text, hashlib.sha256(data).hexdigest(), len(data), mtime_ns, invalid)
