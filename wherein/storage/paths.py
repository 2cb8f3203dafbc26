"""The data home: where every index and cache lives, never inside a repository."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["data_home"]


def data_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$WHEREIN_HOME`, else `$XDG_DATA_HOME/wherein`, else `~/.local/share/wherein`."""
    env = os.environ if environ is None else environ
    if env.get("WHEREIN_HOME"):
        return Path(env["WHEREIN_HOME"]).expanduser()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "wherein"
