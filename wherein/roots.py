"""Extra source roots: library trees indexed beside the workspace under a label.

A `scope.source_roots` entry is a path, optionally prefixed `name=`. Absolute
paths are taken as given, relative ones resolve against the workspace, and the
name (default: the folder's basename) becomes the first segment of every result
path from that root. The label shares the index's path namespace with the
workspace's own top-level folders, so a name that is also such a folder (or the
focus) is refused: otherwise `lib/x.py` could be either file. Every unusable
entry is a problem to report, never an error: the other roots still work.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from wherein.workspace import VERSION_CONTROL_DIRS, Root

__all__ = ["RootPlan", "plan_roots", "split_entry", "workspace_roots"]

# What marks a git repository's folder by any name (a bare clone's `name.git`, a worktree's
# under `.git/worktrees`).
GIT_DIR_MARKERS = ("HEAD", "objects", "refs")


@dataclass(frozen=True)
class RootPlan:
    """The roots to walk (the workspace first) and why any configured entry was skipped."""

    roots: tuple[Root, ...]
    problems: tuple[str, ...] = ()

    @property
    def extra(self) -> tuple[Root, ...]:
        return self.roots[1:]


@dataclass(frozen=True)
class _Candidate:
    entry: str
    label: str
    path: Path  # symlinks resolved: the same folder named twice is one folder


def split_entry(entry: str) -> tuple[str | None, str]:
    """(`name` or None, path) of one entry; `name=` only counts before any `/`.

    So `/data/a=b` is a path, and a path that holds `=` can still be named: `lib=/data/a=b`.
    """
    name, sep, rest = entry.partition("=")
    if not sep or "/" in name or os.sep in name:
        return None, entry
    return name.strip(), rest.strip()


def plan_roots(workspace: Path, entries: list[str], focus: str | None = None) -> RootPlan:
    """The workspace root plus every usable extra root, in the order configured.

    Args:
        workspace: the resolved workspace directory.
        entries: `scope.source_roots`, each `path` or `name=path`.
        focus: the search's focus folder, whose first segment a label must not take.
    """
    problems: list[str] = []
    candidates: list[_Candidate] = []
    for entry in entries:
        candidate = _check_entry(workspace, entry, focus, problems)
        if candidate is not None:
            candidates.append(candidate)
    kept = _drop_duplicates(candidates, problems)
    folders = [(workspace, "")] + [(c.path, c.label) for c in kept]
    roots = [Root(path, label, inner=_inner_roots(path, folders)) for path, label in folders]
    return RootPlan(tuple(roots), tuple(problems))


def _inner_roots(path: Path, folders: list[tuple[Path, str]]) -> frozenset[str]:
    """The folders of the other roots below `path`, relative to it: each file is indexed
    once, under the innermost root that holds it (a clone's 60 nested roots indexed each
    file up to 60 times)."""
    return frozenset(
        other.relative_to(path).as_posix()
        for other, _ in folders
        if other != path and other.is_relative_to(path)
    )


def _check_entry(
    workspace: Path, entry: str, focus: str | None, problems: list[str]
) -> _Candidate | None:
    skipped = f"Source root {entry!r} is skipped:"
    name, raw = split_entry(entry)
    if not raw:
        problems.append(f"{skipped} it names no folder. Write it as a path or name=path.")
        return None
    given = Path(raw).expanduser()
    if not given.is_absolute():
        given = workspace / given
    given = Path(os.path.normpath(given))
    label = name if name is not None else given.name
    if not _is_label(label):
        problems.append(
            f"{skipped} {label!r} cannot label result paths: it must be one folder name "
            f"(no '/', not '.' or '..'). Name it with name=path, e.g. 'lib={raw}'."
        )
        return None
    unusable = _unusable_folder(given)
    if unusable:
        problems.append(f"{skipped} {given} {unusable}. Fix the path in scope.source_roots.")
        return None
    path = given.resolve()
    metadata = _version_control_metadata(path)
    if metadata:
        problems.append(
            f"{skipped} {path} {metadata}, which holds a repository's own settings (remote "
            "URLs with their tokens, credentials, hooks), never code to search."
        )
        return None
    if path == workspace or workspace.is_relative_to(path):
        problems.append(
            f"{skipped} {path} holds the workspace {workspace}, which is indexed already. "
            "Name a folder outside the workspace."
        )
        return None
    rename = f"Name it with name=path, e.g. '{label}-src={raw}'."
    # A focus on the root itself (`--focus httpx`) is no clash: only a workspace folder is.
    if focus and focus.split("/", 1)[0] == label and os.path.isdir(workspace / label):
        problems.append(
            f"{skipped} its name {label!r} is also the focus {focus!r}, so their result paths "
            f"would mix. {rename}"
        )
        return None
    if os.path.isdir(workspace / label):
        problems.append(
            f"{skipped} its name {label!r} is also a folder at the top of the workspace, so "
            f"their result paths would mix. {rename}"
        )
        return None
    return _Candidate(entry, label, path)


def _drop_duplicates(candidates: list[_Candidate], problems: list[str]) -> list[_Candidate]:
    """Two roots with one name are both skipped: which one was meant is a guess."""
    by_label: dict[str, list[_Candidate]] = {}
    for c in candidates:
        by_label.setdefault(c.label, []).append(c)
    kept: list[_Candidate] = []
    folders: dict[Path, _Candidate] = {}
    for c in candidates:
        same = by_label[c.label]
        if len(same) > 1:
            if c is same[0]:
                listed = ", ".join(repr(s.entry) for s in same)
                problems.append(
                    f"Source roots {listed} are all named {c.label!r}: all are skipped. "
                    "Give each its own name with name=path."
                )
            continue
        first = folders.setdefault(c.path, c)
        if first is not c:
            problems.append(
                f"Source root {c.entry!r} is skipped: {c.path} is already indexed as "
                f"{first.label!r}. Remove one of the two entries."
            )
            continue
        kept.append(c)
    return kept


def _is_label(label: str) -> bool:
    return bool(label) and label not in (".", "..") and "/" not in label and "\0" not in label


def _version_control_metadata(path: Path) -> str | None:
    """How `path` is a version-control system's own folder, or None. The walk never enters
    one (`SKIPPED_DIRS`), and a root must not take it there: a cloned `.wherein.toml` naming
    `.git` as a source root served `.git/config`'s tokens to the agent."""
    inside = next((part for part in path.parts if part in VERSION_CONTROL_DIRS), None)
    if inside is not None:
        return f"is in a {inside} folder"
    if all(os.path.exists(path / name) for name in GIT_DIR_MARKERS):
        return "is a git repository's folder (HEAD, objects, refs)"
    return None


def _unusable_folder(path: Path) -> str | None:
    """Why `path` cannot be walked as a root, or None. Tries the real operations: root's
    permission bypass makes `os.access` answer yes where the walk would be refused."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    if not stat.S_ISDIR(info.st_mode):
        return "is a file, not a folder" if stat.S_ISREG(info.st_mode) else "is not a folder"
    try:
        with os.scandir(path) as entries:
            next(entries, None)
        os.stat(os.path.join(path, "."))  # listing needs 'r', entering needs 'x'
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    return None


def workspace_roots(workspace: Path, settings, focus: str | None = None) -> list[Root]:
    """The workspace root first, then the usable extra source roots (`scope.source_roots`)."""
    return list(plan_roots(workspace, settings["scope.source_roots"], focus).roots)
