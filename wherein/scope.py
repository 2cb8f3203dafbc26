"""Focus scopes: the one folder of a large workspace a search ranks inside.

Resolution, most explicit first: the caller's `focus` (`--focus`, the tool's
`focus`), then the configured `scope.focus`; else the nearest folder enclosing
the current directory that carries a marker file (`scope.focus_markers`); else
the whole workspace. Nothing is inferred from the query: a scope is chosen, and
`status` lists the marked folders so that choosing is reading a list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein.config import Settings
from wherein.errors import ConfigError, UsageError

__all__ = ["Scope", "marker_scope", "relative_folder", "resolve_scope"]

RESOLVED_EXPLICIT = "explicit"
RESOLVED_MARKER = "marker"
RESOLVED_WORKSPACE = "workspace"


@dataclass(frozen=True)
class Scope:
    """The part of the workspace a search ranks, and how it was chosen."""

    focus: str | None  # a folder relative to the workspace; None for the whole workspace
    resolved_by: str  # "explicit" | "marker" | "workspace"

    def to_json(self) -> dict[str, Any]:
        return {"focus": self.focus, "resolved_by": self.resolved_by}


def resolve_scope(
    workspace: Path, focus: str | None, settings: Settings, cwd: Path | None = None
) -> Scope:
    """The scope of one search or index run.

    `focus` "" or "." is an explicit choice of the whole workspace: the way to step out of
    a marked or configured scope.

    Raises:
        UsageError: the focus is outside the workspace or not a folder.
        ConfigError: a focus marker is a path rather than a file name.
    """
    if focus is not None:
        return _explicit(workspace, focus, "--focus")
    if settings["scope.focus"]:
        return _explicit(workspace, settings["scope.focus"], "scope.focus")
    markers = marker_names(settings["scope.focus_markers"])
    found = marker_scope(workspace, _current_dir() if cwd is None else cwd, markers)
    if found is not None:
        return Scope(found, RESOLVED_MARKER)
    return Scope(None, RESOLVED_WORKSPACE)


def _explicit(workspace: Path, value: str, flag: str) -> Scope:
    folder = relative_folder(workspace, value, flag) if value.strip() else ""
    return Scope(folder or None, RESOLVED_EXPLICIT)


def relative_folder(workspace: Path, value: str, flag: str) -> str:
    """`value` as a '/'-separated folder relative to `workspace` ("" for the workspace).

    Raises:
        UsageError: the folder escapes the workspace (`..`, absolute, symlink) or is missing.
    """
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = workspace / candidate
    resolved = candidate.resolve()
    try:
        rel = resolved.relative_to(workspace)
    except ValueError:
        raise UsageError(
            f"{flag} {value} is outside the workspace {workspace}. Name a folder inside it."
        ) from None
    if not resolved.is_dir():
        raise UsageError(f"{flag} {value} is not a folder in {workspace}. Name an existing one.")
    return rel.as_posix() if rel.parts else ""


def marker_names(markers: list[str]) -> list[str]:
    """The configured marker file names, refusing paths (a path would mark every folder)."""
    names = [m.strip() for m in markers if m.strip()]
    for name in names:
        if "/" in name or os.sep in name or name in (".", ".."):
            raise ConfigError(
                f"Focus marker {name!r} in scope.focus_markers is not a file name. "
                "List bare names such as CONTROLLER.md."
            )
    return names


def marker_scope(workspace: Path, cwd: Path | None, markers: list[str]) -> str | None:
    """The nearest folder from `cwd` up to (not including) the workspace root that holds a
    marker file, relative to the workspace; None if `cwd` is outside it or none does.

    The workspace root itself is never a marker scope: it would narrow nothing.
    """
    if not markers or cwd is None:
        return None
    try:
        rel = cwd.resolve().relative_to(workspace)
    except (ValueError, OSError):
        return None
    parts = rel.parts
    while parts:
        folder = workspace.joinpath(*parts)
        if any(_is_file(folder / name) for name in markers):
            return "/".join(parts)
        parts = parts[:-1]
    return None


def _current_dir() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # the current directory was deleted under us
        return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
