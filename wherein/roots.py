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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wherein.config import SOURCE_WORKSPACE
from wherein.settings import Settings
from wherein.untrusted import capped, echo, echo_name, one_line
from wherein.workspace import VERSION_CONTROL_DIRS, Root

__all__ = ["RootPlan", "configured_roots", "plan_roots", "split_entry", "workspace_roots"]

# Problems one plan reports, and entries one problem lists: a workspace file of thousands of
# entries is said in every answer.
MAX_PROBLEMS = 20
MAX_LISTED = 5
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


@dataclass(frozen=True)
class _Shown:
    """How a problem quotes what the entries wrote: `echo` for an entry or a label and the
    path whole, for your own file's; `echo_name` for both, for a repository's."""

    value: Callable[[str], str]
    place: Callable[[str], str]

    def __call__(self, text: str) -> str:
        return self.value(text)

    def path(self, path: Path) -> str:
        return self.place(str(path))


def split_entry(entry: str) -> tuple[str | None, str]:
    """(`name` or None, path) of one entry; `name=` only counts before any `/`.

    So `/data/a=b` is a path, and a path that holds `=` can still be named: `lib=/data/a=b`.
    """
    name, sep, rest = entry.partition("=")
    if not sep or "/" in name or os.sep in name:
        return None, entry
    return name.strip(), rest.strip()


def plan_roots(
    workspace: Path, entries: list[str], focus: str | None = None, repository_wrote: bool = False
) -> RootPlan:
    """The workspace root plus every usable extra root, in the order configured.

    Args:
        workspace: the resolved workspace directory.
        entries: `scope.source_roots`, each `path` or `name=path`.
        focus: the search's focus folder, whose first segment a label must not take.
        repository_wrote: the entries come from the workspace's own file. A problem then
            quotes an entry, a label or a folder only where it reads as a name
            (`untrusted.echo_name`): each is said in every answer, outside the fence.
    """
    shown = _Shown(echo_name, echo_name) if repository_wrote else _Shown(echo, one_line)
    problems: list[str] = []
    candidates: list[_Candidate] = []
    for entry in entries:
        candidate = _check_entry(workspace, entry, focus, problems, shown)
        if candidate is not None:
            candidates.append(candidate)
    kept = _drop_duplicates(candidates, problems, shown)
    folders = [(workspace, "")] + [(c.path, c.label) for c in kept]
    roots = [Root(path, label, inner=_inner_roots(path, folders)) for path, label in folders]
    return RootPlan(tuple(roots), tuple(capped(problems, MAX_PROBLEMS, "skipped source roots")))


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
    workspace: Path,
    entry: str,
    focus: str | None,
    problems: list[str],
    shown: _Shown,
) -> _Candidate | None:
    skipped = f"Source root {shown(entry)} is skipped:"
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
            f"{skipped} {shown(label)} cannot label result paths: it must be one folder name "
            "(no '/', not '.' or '..'). Name it with name=path, e.g. 'lib=PATH'."
        )
        return None
    unusable = _unusable_folder(given)
    if unusable:
        problems.append(f"{skipped} {shown.path(given)} {unusable}. Fix it in scope.source_roots.")
        return None
    path = given.resolve()
    metadata = _version_control_metadata(path)
    if metadata:
        problems.append(
            f"{skipped} {shown.path(path)} {metadata}, which holds a repository's own settings "
            "(remote URLs with their tokens, credentials, hooks), never code to search."
        )
        return None
    if path == workspace or workspace.is_relative_to(path):
        problems.append(
            f"{skipped} it holds the workspace {workspace}, which is indexed already. "
            "Name a folder outside the workspace."
        )
        return None
    rename = f"Name it otherwise with name=path, e.g. {shown(label + '-src')} as the name."
    # A focus on the root itself (`--focus httpx`) is no clash: only a workspace folder is.
    if focus and focus.split("/", 1)[0] == label and os.path.isdir(workspace / label):
        problems.append(
            f"{skipped} its name {shown(label)} is also the focus {shown(focus)}, so their "
            f"result paths would mix. {rename}"
        )
        return None
    if os.path.isdir(workspace / label):
        problems.append(
            f"{skipped} its name {shown(label)} is also a folder at the top of the workspace, so "
            f"their result paths would mix. {rename}"
        )
        return None
    return _Candidate(entry, label, path)


def _drop_duplicates(
    candidates: list[_Candidate], problems: list[str], shown: _Shown
) -> list[_Candidate]:
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
                listed = ", ".join(shown(s.entry) for s in same[:MAX_LISTED])
                more = f" and {len(same) - MAX_LISTED:,} more" if len(same) > MAX_LISTED else ""
                problems.append(
                    f"Source roots {listed}{more} are all named {shown(c.label)}: all are "
                    "skipped. Give each its own name with name=path."
                )
            continue
        first = folders.setdefault(c.path, c)
        if first is not c:
            problems.append(
                f"Source root {shown(c.entry)} is skipped: {shown.path(c.path)} is already "
                f"indexed as {shown(first.label)}. Remove one of the two entries."
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


def configured_roots(workspace: Path, settings: Settings, focus: str | None = None) -> RootPlan:
    """`plan_roots` of `scope.source_roots`, knowing whose file named them."""
    wrote = settings.sources.get("scope.source_roots") == SOURCE_WORKSPACE
    return plan_roots(workspace, settings["scope.source_roots"], focus, repository_wrote=wrote)


def workspace_roots(workspace: Path, settings: Settings, focus: str | None = None) -> list[Root]:
    """The workspace root first, then the usable extra source roots (`scope.source_roots`)."""
    return list(configured_roots(workspace, settings, focus).roots)
