"""Removing one index directory, for `wherein forget` and `wherein gc`: only ours, never in use.

An index is derived data, so removing one costs a rebuild; removing the wrong thing costs
more. So a directory is removed only when it is a real folder (not a link) with an index's
name directly in `$WHEREIN_HOME/workspaces`, itself a real folder (as is every folder on
the way to a shared package index); only while this process holds its write lock, so a
search or `wherein index` running there is never pulled from under (another holder means
"skipped", said so); and by renaming it first to a hidden name in the same folder, so a
process that arrives meanwhile starts a fresh index instead of writing into a half-removed
one (a `wherein serve` session that held it open between searches is such a process:
`ResidentIndex.store` sees the path name another file, or none). The deletion walks by
open folder descriptors (`shutil.rmtree` where it avoids symlink attacks), so a link below
is removed as a link, never followed.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from wherein.errors import IndexUnwritable
from wherein.index.catalog import INDEX_DIR_NAME
from wherein.index.location import WORKSPACES_DIR_NAME
from wherein.index.refresh import index_lock

__all__ = ["BUSY", "Removal", "remove_index"]

# Why an index was left in place, as `skipped` says in `--json`.
BUSY = "busy"
REFUSED = "refused"
FAILED = "failed"
# A renamed index on its way out: hidden, and never matching INDEX_DIR_NAME.
REMOVING_MARK = ".removing-"


@dataclass(frozen=True)
class Removal:
    """What became of one index: removed, or why not (`kind` BUSY, REFUSED or FAILED)."""

    removed: bool
    kind: str | None = None
    reason: str | None = None


def remove_index(
    directory: Path, home: Path, *, folder: Path | None = None, names: re.Pattern = INDEX_DIR_NAME
) -> Removal:
    """Remove the index `directory` under `home` (the data home), if it is safe to.

    `folder` and `names` say where an index may be and how it is named: a workspace's by
    default, a shared package index's for `wherein.packages.catalog`.
    """
    workspaces = home / WORKSPACES_DIR_NAME if folder is None else folder
    refused = _refusal(directory, workspaces, names, home)
    if refused is not None:
        return Removal(False, REFUSED, refused)
    try:
        with index_lock(directory, wait=False, notices=[]) as locked:
            if not locked:
                return Removal(
                    False,
                    BUSY,
                    "another wherein process (a search, an index run or an agent's server) "
                    "holds it; run the command again when that process is done",
                )
            doomed = workspaces / f".{directory.name}{REMOVING_MARK}{secrets.token_hex(4)}"
            try:
                os.rename(directory, doomed)
            except OSError as err:
                return Removal(False, FAILED, f"it cannot be moved ({err.strerror or err})")
            try:
                shutil.rmtree(doomed)
            except OSError as err:
                return Removal(
                    False,
                    FAILED,
                    f"it was moved to {doomed} but not deleted ({err.strerror or err}); "
                    "delete that folder by hand",
                )
    except IndexUnwritable as err:
        return Removal(False, FAILED, str(err).rstrip("."))
    return Removal(True)


def _refusal(directory: Path, workspaces: Path, names: re.Pattern, home: Path) -> str | None:
    """Why `directory` is not one this command may remove, or None: every folder from the
    data home down to it must be a real folder (`packages/` as much as `packages/pypi/`)."""
    if not shutil.rmtree.avoids_symlink_attacks:
        return "on this system folders cannot be deleted without following links inside"
    if directory.parent != workspaces or not names.match(directory.name):
        return f"it is not an index directory directly in {workspaces}"
    try:
        between = workspaces.relative_to(home).parts
    except ValueError:
        return f"it is not inside the data home {home}"
    folders = [home.joinpath(*between[: n + 1]) for n in range(len(between))]
    checked = [(path, "the folder of indexes") for path in folders] + [(directory, "the index")]
    for path, what in checked:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return f"{what} {path} is not there any more"
        except OSError as err:
            return f"{what} {path} cannot be looked at ({err.strerror or err})"
        if not stat.S_ISDIR(mode):
            kind = "a link" if stat.S_ISLNK(mode) else "not a folder"
            return f"{what} {path} is {kind}, and wherein removes nothing through it"
    return None
