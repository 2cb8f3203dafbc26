"""Where a workspace's index lives: under the user's data directory, never in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from wherein.storage.paths import data_home

__all__ = ["WORKSPACES_DIR_NAME", "data_home", "index_dir", "workspace_digest"]

INDEX_FILE_NAME = "index.db"
LOCK_FILE_NAME = "index.lock"
# The folder of the data home that holds one index directory per workspace.
WORKSPACES_DIR_NAME = "workspaces"


def index_dir(workspace: Path, environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/workspaces/<basename>-<hash of the absolute path>`."""
    digest = workspace_digest(str(workspace.resolve()))
    name = re.sub(r"[^A-Za-z0-9._-]", "_", workspace.name)[:40] or "root"
    return data_home(environ) / WORKSPACES_DIR_NAME / f"{name}-{digest}"


def workspace_digest(absolute: str) -> str:
    """The hash an index directory's name ends with: to check which workspace it is for."""
    import hashlib  # here: `data_home` alone (the status line's) needs no OpenSSL

    return hashlib.sha256(os.fsencode(absolute)).hexdigest()[:16]
