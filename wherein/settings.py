"""The effective configuration record, and where its two files live.

Everything that reads settings imports this small module (embedders, ranking, the surfaces);
how they are merged and trusted is `wherein.config`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["WORKSPACE_FILE_NAME", "Settings", "user_config_path", "workspace_config_path"]

WORKSPACE_FILE_NAME = ".wherein.toml"


@dataclass(frozen=True)
class Settings:
    """The effective configuration for one workspace, with where each value came from."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    warnings: tuple[str, ...] = field(default=())

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def section(self, name: str) -> dict[str, Any]:
        """The keys of one section, without the section prefix."""
        prefix = name + "."
        return {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/wherein/config.toml`, defaulting to `~/.config`."""
    from wherein.storage.paths import xdg_base

    return xdg_base("XDG_CONFIG_HOME", ".config", environ) / "wherein" / "config.toml"


def workspace_config_path(workspace: Path) -> Path:
    return workspace / WORKSPACE_FILE_NAME
