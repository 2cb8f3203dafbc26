"""Which folder is the workspace: the project around the current folder, not the folder itself.

`cd src/ranking && wherein search ...` should search the project, with paths relative to its
root, rather than build a second index for one subfolder. The project is the nearest enclosing
folder that holds `.git` (a directory, or a worktree's or submodule's file) or `.wherein.toml`,
as git finds its repository; failing that, the current folder. `--workspace` always wins. The
home folder and `/` are never chosen by themselves (a dotfiles repository in `~` would otherwise
swallow every folder below it), and indexing them needs `--workspace` naming them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from wherein.errors import UsageError, WorkspaceError
from wherein.workspace import resolve_workspace

__all__ = ["PROJECT_MARKERS", "WorkspaceChoice", "choose_workspace"]

PROJECT_MARKERS = (".git", ".wherein.toml")

CHOSEN_BY_FLAG = "flag"  # --workspace (or the MCP server's own --workspace)
CHOSEN_BY_MARKER = "marker"  # the nearest folder above holding .git or .wherein.toml
CHOSEN_BY_CWD = "cwd"  # no marker above: the current folder


@dataclass(frozen=True)
class WorkspaceChoice:
    """The workspace folder, the rule that chose it, and the marker that rule found."""

    path: Path
    chosen_by: str
    marker: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"chosen_by": self.chosen_by, "marker": self.marker}

    def describe(self) -> str:
        if self.chosen_by == CHOSEN_BY_FLAG:
            return "chosen by --workspace"
        if self.chosen_by == CHOSEN_BY_MARKER:
            return f"the nearest folder above holding {self.marker}"
        return "the current folder (no .git or .wherein.toml above it)"


def choose_workspace(explicit: str | os.PathLike[str] | None) -> WorkspaceChoice:
    """The workspace for a command run in the current folder, with `--workspace` if given.

    Raises:
        WorkspaceError: the folder cannot be used, or is the home folder or `/` without
            `--workspace` naming it.
    """
    if explicit is not None:
        if not os.fspath(explicit).strip():  # `--workspace ""`, an unset variable: not here
            raise UsageError(
                "--workspace is empty: name the folder to work in, or leave the option out "
                "to work in the project around the current folder."
            )
        return WorkspaceChoice(resolve_workspace(explicit), CHOSEN_BY_FLAG)
    here = resolve_workspace(None)
    too_wide = _too_wide()
    for folder in (here, *here.parents):
        if folder in too_wide:
            break
        marker = next((m for m in PROJECT_MARKERS if _exists(folder / m)), None)
        if marker is not None:
            return WorkspaceChoice(folder, CHOSEN_BY_MARKER, marker)
    if here in too_wide:
        raise WorkspaceError(
            f"Not using {here} as a workspace: it is your home folder or the file system root, "
            f"and indexing it would read everything below. Run wherein inside a project, or "
            f"pass --workspace {here} to index it anyway."
        )
    return WorkspaceChoice(here, CHOSEN_BY_CWD)


def _too_wide() -> set[Path]:
    wide = {Path("/")}
    with contextlib.suppress(OSError, RuntimeError, KeyError):  # no HOME and no passwd entry
        wide.add(Path.home().resolve())
    return wide


def _exists(path: Path) -> bool:
    """Whether `path` is there at all (a `.git` file counts); links are not followed."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)
