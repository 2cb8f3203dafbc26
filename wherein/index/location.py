"""Where a workspace's index lives: under the user's data directory, never in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from wherein.storage.paths import data_home

__all__ = ["WORKSPACES_DIR_NAME", "data_home", "file_identity", "index_dir", "workspace_digest"]

INDEX_FILE_NAME = "index.db"
LOCK_FILE_NAME = "index.lock"
# The folder of the data home that holds one index directory per workspace.
WORKSPACES_DIR_NAME = "workspaces"


# Index directories worked out in this process, by workspace and what names the data
# home (bounded).
_FOUND: dict[tuple[str, ...], Path] = {}
_FOUND_MAX = 64
_HOME_NAMES = ("WHEREIN_HOME", "XDG_DATA_HOME")


def index_dir(workspace: Path, environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/workspaces/<basename>-<hash of the absolute path>`.

    Worked out once per process for a workspace path and data home: resolving the path
    (a system call per folder) and the home was 0.3 ms of each 5 ms search a `wherein
    serve` session answers. A workspace path re-pointed (a symlink changed) while a process
    runs keeps the index directory it had.
    """
    env = os.environ if environ is None else environ
    absolute = str(workspace) if workspace.is_absolute() else os.path.join(os.getcwd(), workspace)
    # `~` and the default home come from this process's HOME, whatever `environ` says.
    key = (absolute, *(env.get(name, "") for name in _HOME_NAMES), os.environ.get("HOME", ""))
    found = _FOUND.get(key)
    if found is None:
        digest = workspace_digest(str(workspace.resolve()))
        name = re.sub(r"[^A-Za-z0-9._-]", "_", workspace.name)[:40] or "root"
        found = data_home(environ) / WORKSPACES_DIR_NAME / f"{name}-{digest}"
        if len(_FOUND) >= _FOUND_MAX:
            _FOUND.clear()
        _FOUND[key] = found
    return found


def workspace_digest(absolute: str) -> str:
    """The hash an index directory's name ends with: to check which workspace it is for."""
    import hashlib  # here: `data_home` alone (the status line's) needs no OpenSSL

    return hashlib.sha256(os.fsencode(absolute)).hexdigest()[:16]


def file_identity(path: Path) -> tuple[int, int] | None:
    """(st_dev, st_ino) of what `path` names now; None when it names nothing: an index file
    removed (`wherein forget`) or replaced since it was opened is another identity."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
