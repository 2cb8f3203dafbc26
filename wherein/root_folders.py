"""A folder of an extra source root, named the way its results are labelled: `httpx/_transports`.

Results from a root come back as `label/relative path`, so `--path httpx` and `--focus httpx`
(and the tool's `path` and `focus`) must mean that root, as the same words would mean a folder
of the workspace. The label cannot be a top-level folder of the workspace too (`plan_roots`
refuses such a root), so a name means one place. A root's own absolute path, as a result's
`source_path` shows it, names it as well. The folder must lie inside the root once links are
resolved, as a workspace folder must lie inside the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from wherein.errors import UsageError
from wherein.untrusted import echo
from wherein.workspace import Root

__all__ = ["root_folder"]


def root_folder(roots: Sequence[Root], value: str, flag: str) -> str | None:
    """`value` as a result-path prefix inside one of `roots` (`label` or `label/sub`), or None
    when it names no root, so the caller reports it as it would have.

    `flag` names the argument in a message ("--path", "Argument path").

    Raises:
        UsageError: `value` starts with a root's label (or lies in its folder) but is not a
            folder inside that root.
    """
    candidate = Path(value).expanduser()
    if candidate.is_absolute():
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError, ValueError):
            return None
        root = next((r for r in roots if resolved.is_relative_to(r.path)), None)
    else:
        label, _, rest = os.path.normpath(value).partition(os.sep)
        root = next((r for r in roots if r.label == label), None) or next(
            (r for r in roots if r.files is not None and r.label.rpartition("@")[0] == label), None
        )  # a package root answers to its name without the version too: `--path httpx`
        if root is None:
            return None
        try:
            resolved = (root.path / rest).resolve()
        except (OSError, RuntimeError, ValueError):
            resolved = None
    if root is None:
        return None
    inside = resolved is not None and resolved.is_relative_to(root.path)
    if not inside or not _is_dir(resolved):
        raise UsageError(
            f"{flag} {echo(value)} is not a folder in the source root {root.label!r} "
            f"({root.path}). Name an existing one, as '{root.label}/FOLDER'."
        )
    relative = resolved.relative_to(root.path).as_posix()
    return root.label if relative == "." else f"{root.label}/{relative}"


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False
