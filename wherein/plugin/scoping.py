"""Folders the agent names (`path`, `focus`) must lie inside the workspace, symlinks resolved."""

from __future__ import annotations

from pathlib import Path

from wherein.errors import UsageError
from wherein.untrusted import echo

__all__ = ["folder_inside"]


def folder_inside(workspace: Path, value: str, argument: str) -> str:
    """The folder `value` relative to `workspace`, as posix text ("" for the workspace itself).

    Raises:
        UsageError: the folder escapes the workspace (by `..`, an absolute path or a symlink),
            does not exist, or cannot be looked up (a NUL, a name too long, a symlink loop).
    """
    candidate = Path(value)
    if not candidate.is_absolute():
        candidate = workspace / candidate
    try:
        resolved = candidate.resolve()
        is_dir = resolved.is_dir()
    except (OSError, RuntimeError, ValueError) as err:  # RuntimeError: a symlink loop
        raise UsageError(
            f"Argument {argument} {echo(value)} cannot be looked up in {workspace} "
            f"({getattr(err, 'strerror', None) or err}). Name an existing folder."
        ) from None
    try:
        relative = resolved.relative_to(workspace)
    except ValueError:
        raise UsageError(
            f"Argument {argument} {echo(value)} is outside the workspace {workspace}. "
            "Name a folder inside it, relative to the workspace root."
        ) from None
    if not is_dir:
        raise UsageError(
            f"Argument {argument} {echo(value)} is not a folder in {workspace}. "
            "Name an existing one."
        )
    return relative.as_posix() if relative.parts else ""
