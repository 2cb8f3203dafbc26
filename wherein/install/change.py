"""One file an install or uninstall writes (or deletes), and the folders it makes on the way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wherein.install.record import Created

__all__ = ["FileChange", "missing_dirs"]


@dataclass(frozen=True)
class FileChange:
    """One file to write (or delete, when `after` is None), and for whom."""

    label: str
    path: Path
    before: str | None
    after: str | None
    created: Created = field(default_factory=Created)
    project: Path | None = None  # the workspace, for a project's own file: no link followed
    after_write: Callable[[], None] | None = field(default=None, compare=False)  # once written

    @property
    def changed(self) -> bool:
        return self.before != self.after


def missing_dirs(path: Path) -> list[str]:
    """The folders above `path` that do not exist yet (install creates them)."""
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(str(parent))
    return missing
