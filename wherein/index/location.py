"""Where a workspace's index lives: under the user's data directory, never in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["data_home", "index_dir"]

INDEX_FILE_NAME = "index.db"
LOCK_FILE_NAME = "index.lock"


def data_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$WHEREIN_HOME`, else `$XDG_DATA_HOME/wherein`, else `~/.local/share/wherein`."""
    env = os.environ if environ is None else environ
    if env.get("WHEREIN_HOME"):
        return Path(env["WHEREIN_HOME"]).expanduser()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "wherein"


def index_dir(workspace: Path, environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/workspaces/<basename>-<hash of the absolute path>`."""
    import hashlib  # here: `data_home` alone (the status line's) needs no OpenSSL

    absolute = str(workspace.resolve())
    digest = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", workspace.name)[:40] or "root"
    return data_home(environ) / "workspaces" / f"{name}-{digest}"
