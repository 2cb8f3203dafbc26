"""The walk: which files of a workspace (and its extra source roots) are indexed.

Ignore rules come from nested `.gitignore` files, `.git/info/exclude` and
`.whereinignore`, matched by `pathspec` the way git matches them. Symlinks are
never followed, so a link out of the tree cannot index the machine and a link
loop cannot hang the walk.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wherein.errors import WorkspaceError

if TYPE_CHECKING:
    import pathspec

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


@dataclass(frozen=True)
class Root:
    """A tree to index: the workspace itself (label "") or an extra source root."""

    path: Path
    label: str = ""

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
    # (path, size, mtime_ns) of every directory entered and ignore file read: a later stat
    # of these and of the files walked tells whether a new walk could find anything new.
    watched: list[tuple[str, int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class SourceText:
    """A file's decoded text and the hash of its bytes."""

    text: str
    sha256: str
    size: int
    mtime_ns: int
    had_invalid_utf8: bool


def resolve_workspace(path: str | os.PathLike[str] | None) -> Path:
    """The absolute workspace directory, or a clear error if it cannot be one."""
    candidate = Path(path if path is not None else os.getcwd()).expanduser()
    try:
        resolved = candidate.resolve(strict=True)
    except FileNotFoundError as err:
        raise WorkspaceError(
            f"Workspace {candidate} does not exist. Pass an existing directory with --workspace."
        ) from err
    except (OSError, RuntimeError) as err:
        raise WorkspaceError(f"Workspace {candidate} cannot be opened: {err}.") from err
    if not resolved.is_dir():
        raise WorkspaceError(
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

    def __init__(self, layers: tuple[tuple[str, pathspec.PathSpec], ...] = ()) -> None:
        self.layers = layers

    def with_directory(
        self, directory: Path, rel_dir: str, watched: list | None = None
    ) -> _IgnoreRules:
        lines: list[str] = []
        for name in IGNORE_FILE_NAMES:
            lines.extend(_read_lines(directory / name, watched))
        if not lines:
            return self
        spec = _gitignore_spec(lines)
        return _IgnoreRules((*self.layers, (rel_dir, spec)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for base, spec in self.layers:
            local = rel[len(base) + 1 :] if base else rel
            result = spec.check_file(local + "/" if is_dir else local)
            if result.include is not None:
                verdict = result.include
        return verdict


def _gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    # Imported on first use: resolving a workspace (every search) needs no ignore rules.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read_lines(path: Path, watched: list | None = None) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if watched is not None:
        _watch(watched, str(path))
    return text.splitlines()


def _watch(watched: list, path: str) -> None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return
    watched.append((path, info.st_size, info.st_mtime_ns))


def walk_root(root: Root, max_file_bytes: int, report: WalkReport) -> Iterator[FileEntry]:
    """Yield the files of `root` that may be indexed, in a stable order.

    The root itself is entered whatever it is called; below it the skip list and
    the ignore files apply. Nothing here reads file contents.
    """
    rules = _IgnoreRules()
    exclude = root.path / ".git" / "info" / "exclude"
    if _is_file(exclude):
        lines = _read_lines(exclude, report.watched)
        rules = _IgnoreRules((("", _gitignore_spec(lines)),))
    yield from _walk_dir(root, root.path, "", rules, max_file_bytes, report)


def _walk_dir(
    root: Root,
    directory: Path,
    rel_dir: str,
    rules: _IgnoreRules,
    max_file_bytes: int,
    report: WalkReport,
) -> Iterator[FileEntry]:
    _watch(report.watched, str(directory))
    rules = rules.with_directory(directory, rel_dir, report.watched)
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as err:
        report.unreadable.append(f"{root.display(rel_dir) or '.'}/ ({err.strerror or err})")
        return
    subdirs = []
    for entry in entries:
        name = display_name(entry.name)
        rel = f"{rel_dir}/{name}" if rel_dir else name
        try:
            if entry.is_symlink():
                report.symlinks += 1
                continue
            info = entry.stat(follow_symlinks=False)
        except OSError as err:
            report.unreadable.append(f"{root.display(rel)} ({err.strerror or err})")
            continue
        if stat.S_ISDIR(info.st_mode):
            if (
                entry.name in SKIPPED_DIRS
                or entry.name.endswith(METADATA_DIR_SUFFIXES)
                or _is_virtualenv(Path(entry.path))
            ):
                continue
            if not rules.ignored(rel, is_dir=True):
                subdirs.append((Path(entry.path), rel))
            continue
        if not stat.S_ISREG(info.st_mode) or entry.name in IGNORE_FILE_NAMES:
            continue
        if rules.ignored(rel, is_dir=False):
            continue
        if info.st_size > max_file_bytes:
            report.too_large += 1
            report.watched.append((entry.path, info.st_size, info.st_mtime_ns))
            continue
        yield FileEntry(root, rel, Path(entry.path), info.st_size, info.st_mtime_ns)
    for path, rel in subdirs:
        yield from _walk_dir(root, path, rel, rules, max_file_bytes, report)


def _is_virtualenv(path: Path) -> bool:
    return _is_file(path / "pyvenv.cfg")


def _is_file(path: Path) -> bool:
    """`Path.is_file`, but False on EACCES too: pathlib re-raises it, and an unreadable
    directory must be reported by the walk, not end it."""
    try:
        return stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode)
    except OSError:
        return False


def read_source(entry: FileEntry, max_file_bytes: int) -> SourceText | str:
    """Read and hash a file; return its text, or the reason it is skipped.

    Reasons: "binary", "too_large", "vanished", "unreadable: ...". A file that
    changes while it is read is hashed as read and stamped with an mtime that
    cannot match, so the next refresh reads it again.
    """
    try:
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
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
