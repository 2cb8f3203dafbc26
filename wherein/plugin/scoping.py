"""Folders the agent names (`path`, `focus`) must lie inside the workspace, symlinks resolved."""

from __future__ import annotations

from pathlib import Path

from wherein.errors import UsageError

__all__ = ["folder_inside"]


def folder_inside(workspace: Path, value: str, argument: str) -> str:
    """The folder `value` relative to `workspace`, as posix text ("" for the workspace itself).

    Raises:
        UsageError: the folder escapes the workspace (by `..`, an absolute path or a symlink)
            or does not exist.
    """
    candidate = Path(value)
    if not candidate.is_absolute():
        candidate = workspace / candidate
    resolved = candidate.resolve()
    try:
        relative = resolved.relative_to(workspace)
    except ValueError:
        raise UsageError(
            f"Argument {argument} {value!r} is outside the workspace {workspace}. "
            "Name a folder inside it, relative to the workspace root."
        ) from None
    if not resolved.is_dir():
        raise UsageError(
            f"Argument {argument} {value!r} is not a folder in {workspace}. Name an existing one."
        )
    return relative.as_posix() if relative.parts else ""
