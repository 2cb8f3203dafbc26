"""The records of a walk: a tree to index, a file found in it, and what the walk passed over."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MAX_WALK_WARNINGS", "FileEntry", "Root", "WalkReport", "is_refusal", "note_unreadable"]

# What keeps an entry unreadable until its permissions change: a chmod, which moves the change
# time a walk's stamp holds. Any other failure (an I/O error, a race with a change) may pass
# with no change the stamp would see.
REFUSALS = frozenset({errno.EACCES, errno.EPERM})
_REFUSAL_WORDS = frozenset(os.strerror(number) for number in REFUSALS)


def is_refusal(err: OSError | str) -> bool:
    """Whether `err` (or the system's words for it, as a worker reports them) is a refusal."""
    if isinstance(err, OSError):
        return err.errno in REFUSALS
    return err in _REFUSAL_WORDS


def note_unreadable(report, shown: str, why: OSError | str, path: str) -> None:
    """Keep what could not be read in `report` (a walk's, or a refresh's reading its files):
    its line, and either its path (a refusal, tried again by the stamp) or a count of the
    failures that may pass by themselves."""
    said = (why.strerror or str(why)) if isinstance(why, OSError) else why
    report.unreadable.append(f"{shown} ({said})")
    if is_refusal(why):
        report.refused.append(path)
    else:
        report.passing_unreadable += 1


# Warnings one walk keeps: a planted tree of bad ignore files must not flood every answer.
MAX_WALK_WARNINGS = 20


@dataclass(frozen=True)
class Root:
    """A tree to index: the workspace itself (label "") or an extra source root."""

    path: Path
    label: str = ""
    # A package root's own files ('/'-separated, relative to `path`), walked instead of the
    # folder: a distribution's RECORD, not the whole site-packages (`wherein.packages`).
    files: tuple[str, ...] | None = None
    # Folders below `path` ('/'-separated, relative to it) that are other roots: each is
    # walked as that root only, so nesting roots (`a`, `a/a`, `a/a/a`, ...) cannot multiply
    # the files indexed (`wherein.roots.plan_roots`).
    inner: frozenset[str] = frozenset()

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
    # What the file is known unchanged by, beside its size: its inode's change time
    # (st_ctime_ns), not its modification time. Every write moves both, but only the change
    # time also moves on a chmod (a file made unreadable is read again and reported) and
    # cannot be set back (`touch -d` gives a rewritten file its old modification time). The
    # name is the index column's, from when it held the modification time.
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
    # How many of `unreadable` may become readable with no change a stamp sees (not refusals,
    # `is_refusal`, nor names told apart): while any are, each search walks again.
    passing_unreadable: int = 0
    # The paths of the refusals among them: a stamp tries each again (`TreeStamp.unchanged`),
    # since access can come with no change time moving (a new group, another user).
    refused: list[str] = field(default_factory=list)
    # One sentence each for an ignore file or line passed over, for the user to fix.
    warnings: list[str] = field(default_factory=list)
    # (path, size, change time) of every directory entered and ignore file read: a later stat
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
