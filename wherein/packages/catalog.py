"""The shared package indexes kept, which workspaces name each, and removing the unnamed.

A shared index is named by a workspace while that workspace's record (`packages.json` beside
its index, `overlay.load_state`) lists it and its folder is still there. One no workspace
names any more (the version was upgraded everywhere, the package removed from
`scope.packages`, the workspace deleted) is listed by `wherein indexes` as unnamed and removed
by `wherein gc`, as a workspace index whose folder is gone is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein.index.catalog import PRESENT, disk_use, list_indexes, own_folders
from wherein.index.removal import Removal, remove_index
from wherein.packages.overlay import load_state
from wherein.packages.resolve import ECOSYSTEMS
from wherein.packages.shared import PACKAGES_DIR_NAME, read_complete

__all__ = ["PackageIndexEntry", "list_package_indexes", "remove_package_index"]

# The names `shared.package_index_dir` gives: never hidden (a removal renames to a hidden one).
PACKAGE_DIR_NAME = re.compile(r"^[A-Za-z0-9_+@][A-Za-z0-9._+@-]*$")


@dataclass(frozen=True)
class PackageIndexEntry:
    """One shared package index, as `wherein indexes --json` shows it under `packages`."""

    ecosystem: str
    name: str  # the folder's name, `httpx-0.28.1`
    path: Path
    label: str | None  # from the complete marker; None while half-built
    complete: bool
    size_bytes: int
    chunks: int | None
    named_by: tuple[str, ...]  # the present workspaces that name it

    def to_json(self) -> dict[str, Any]:
        return {
            "ecosystem": self.ecosystem,
            "name": self.name,
            "path": str(self.path),
            "label": self.label,
            "complete": self.complete,
            "size_bytes": self.size_bytes,
            "chunks": self.chunks,
            "named_by": list(self.named_by),
        }


def list_package_indexes(home: Path) -> list[PackageIndexEntry]:
    """Every shared package index under `<home>/packages`, named ones first."""
    named: dict[str, list[str]] = {}
    for index in list_indexes(home):
        if index.workspace_state != PRESENT or index.workspace is None:
            continue
        packages = load_state(index.path).get("packages")
        for record in packages.values() if isinstance(packages, dict) else ():
            if isinstance(record, dict) and isinstance(record.get("dir"), str):
                named.setdefault(record["dir"], []).append(index.workspace)
    entries = []
    for ecosystem in ECOSYSTEMS:
        folder = home / PACKAGES_DIR_NAME / ecosystem
        for name in own_folders(folder, PACKAGE_DIR_NAME):
            path = folder / name
            marker = read_complete(path) or {}
            chunks = marker.get("chunks")
            entries.append(
                PackageIndexEntry(
                    ecosystem,
                    name,
                    path,
                    marker.get("label") if isinstance(marker.get("label"), str) else None,
                    bool(marker),
                    disk_use(path),
                    chunks if isinstance(chunks, int) else None,
                    tuple(sorted(named.get(str(path), []))),
                )
            )
    return sorted(entries, key=lambda e: (not e.named_by, e.ecosystem, e.name))


def remove_package_index(entry: PackageIndexEntry, home: Path) -> Removal:
    """Remove one shared index, only while no process holds its lock (`index.removal`)."""
    folder = home / PACKAGES_DIR_NAME / entry.ecosystem
    return remove_index(entry.path, home, folder=folder, names=PACKAGE_DIR_NAME)
