"""`wherein roots add NAME[@VERSION]...`: name installed packages as roots, and build their
shared indexes now (once per version, for every workspace).

Where the names are written follows the trust rule of `scope.packages` (SECURITY.md): into the
workspace's `.wherein.toml` when every package resolves inside the workspace (its own `.venv`
or `node_modules`), where a workspace file's names resolve again; otherwise, or with `--user`
or `--python`, into the user's own config file, whose names apply in every workspace and
resolve in each one's environment. `--python` is written there too, as `scope.python`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein.config import (
    SOURCE_USER,
    SOURCE_WORKSPACE,
    config_set,
    load_settings,
    user_config_path,
    workspace_config_path,
)
from wherein.errors import UsageError
from wherein.index.refresh import Progress
from wherein.packages.plan import plan_packages
from wherein.packages.resolve import Package, parse_entry, resolve_package
from wherein.packages.shared import PackageBuild, ensure_package_index

__all__ = ["AddedPackages", "add_packages"]


@dataclass(frozen=True)
class AddedPackages:
    """What `roots add` did: the file written, the entries it now lists, and each build."""

    config_path: Path
    entries: tuple[str, ...]
    builds: tuple[PackageBuild, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": str(self.config_path),
            "entries": list(self.entries),
            "packages": [
                {
                    "label": b.package.label,
                    "ecosystem": b.package.ecosystem,
                    "files": len(b.package.files),
                    "where": b.package.where,
                    "index": str(b.directory),
                    "built": b.built,
                    "complete": b.complete,
                    "chunks_embedded": b.chunks_embedded,
                    "seconds": round(b.seconds, 3),
                }
                for b in self.builds
            ],
        }


def add_packages(
    workspace: Path,
    names: list[str],
    *,
    python: str | None = None,
    user: bool = False,
    progress: Progress | None = None,
    on_wait=None,
) -> AddedPackages:
    """Resolve `names` in the workspace's environment, write them, build their indexes.

    Raises:
        UsageError: a name does not resolve to an installed package (nothing is written).
        ConfigError: the config file cannot be written.
    """
    settings = load_settings(workspace)
    chosen = python or settings["scope.python"]
    packages: list[Package] = []
    for name in names:
        found = resolve_package(workspace, name, python=chosen, inside_only=False)
        if isinstance(found, str):
            raise UsageError(f"{found} Nothing was added.")
        packages.append(found)
    inside = all(_inside(workspace, p.base) for p in packages)
    to_workspace = inside and not user and python is None
    if to_workspace:
        path = workspace_config_path(workspace)
        current = settings["scope.packages"] if _source(settings) == SOURCE_WORKSPACE else []
    else:
        path = user_config_path()
        own = load_settings(None)
        current = own["scope.packages"] if _source(own) == SOURCE_USER else []
        if python is not None:
            config_set("scope.python", python, path)
    entries = _merged(current, names)
    config_set("scope.packages", ",".join(entries), path, workspace_file=to_workspace)
    after = load_settings(workspace)
    builds = tuple(
        ensure_package_index(p, after, progress=progress, on_wait=on_wait) for p in packages
    )
    plan_packages(workspace, after)  # records that this workspace names them (wherein gc)
    return AddedPackages(path, tuple(entries), builds)


def _source(settings) -> str:
    return settings.sources.get("scope.packages", "")


def _merged(current: list[str], names: list[str]) -> list[str]:
    """`current` with `names` added; a name already listed (any version) is replaced."""
    new = {_name_of(n): n for n in names}
    kept = [entry for entry in current if _name_of(entry) not in new]
    return [*kept, *new.values()]


def _name_of(entry: str) -> str:
    parsed = parse_entry(entry)
    return parsed.name.lower() if parsed is not None else entry


def _inside(workspace: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(workspace.resolve())
    except (OSError, RuntimeError):
        return False
