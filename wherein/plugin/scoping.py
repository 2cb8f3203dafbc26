"""Folders the agent names (`path`, `focus`) must lie inside the workspace, symlinks resolved,
or inside an extra source root the user configured, named by its label (`httpx/_models`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wherein.errors import UsageError
from wherein.root_folders import root_folder
from wherein.untrusted import echo
from wherein.workspace import Root

__all__ = ["folder_inside"]


def folder_inside(workspace: Path, value: str, argument: str, roots: Sequence[Root] = ()) -> str:
    """The folder `value` relative to `workspace`, as posix text ("" for the workspace itself);
    one inside an extra source root of `roots` as `label/sub`, as its results are labelled.

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
    flag = f"Argument {argument}"
    try:
        relative = resolved.relative_to(workspace)
    except ValueError:
        in_root = root_folder(roots, value, flag)
        if in_root is not None:
            return in_root
        raise UsageError(
            f"Argument {argument} {echo(value)} is outside the workspace {workspace}. "
            "Name a folder inside it, relative to the workspace root."
        ) from None
    if not is_dir:
        in_root = root_folder(roots, value, flag)
        if in_root is not None:
            return in_root
        raise UsageError(
            f"Argument {argument} {echo(value)} is not a folder in {workspace}. "
            "Name an existing one."
        )
    return relative.as_posix() if relative.parts else ""
