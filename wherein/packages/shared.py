"""One shared index per installed package version, built once for every workspace that names it.

`$WHEREIN_HOME/packages/pypi/httpx-0.28.1/` holds an index of the same schema as a
workspace's (`index.db`, every tier), its lock file, and `complete.json`, written last: an
index without it is half-built and never searched. Two processes building one package wait on
the one lock (`index_lock`, fcntl), and the second finds the marker and builds nothing. A
build killed at any point leaves the committed files and vectors, so the next one resumes
where it stopped: unchanged files are not read again and embedded chunks keep their vectors.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein.config import Settings
from wherein.index.location import INDEX_FILE_NAME, data_home
from wherein.index.refresh import Progress, index_lock
from wherein.index.store import open_store
from wherein.packages.resolve import Package
from wherein.safe_files import UnsafeFile, read_regular, write_atomic

__all__ = [
    "COMPLETE_FILE_NAME",
    "PACKAGES_DIR_NAME",
    "PackageBuild",
    "ensure_package_index",
    "package_index_dir",
    "read_complete",
]

PACKAGES_DIR_NAME = "packages"
COMPLETE_FILE_NAME = "complete.json"
MAX_MARKER_BYTES = 64 * 1024
# A folder name from a name and a version a planted METADATA may spell: short and plain.
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._+@-]")
MAX_NAME_PART_CHARS = 80


@dataclass(frozen=True)
class PackageBuild:
    """What ensuring one package's shared index did."""

    package: Package
    directory: Path
    built: bool  # False: it was complete already (built by this or another workspace)
    chunks_embedded: int
    seconds: float
    notices: tuple[str, ...] = ()
    complete: bool = True


def package_index_dir(package: Package, home: Path | None = None) -> Path:
    """`<data home>/packages/<ecosystem>/<name>-<version>`."""
    name = _UNSAFE_NAME.sub("_", package.name.replace("/", "+"))[:MAX_NAME_PART_CHARS]
    version = _UNSAFE_NAME.sub("_", package.version)[:MAX_NAME_PART_CHARS]
    folder = f"{name.lstrip('.') or '_'}-{version}"
    return (home or data_home()) / PACKAGES_DIR_NAME / package.ecosystem / folder


def read_complete(directory: Path) -> dict[str, Any] | None:
    """The marker of a complete shared index, or None while it is missing or unreadable."""
    try:
        data = read_regular(directory / COMPLETE_FILE_NAME, max_bytes=MAX_MARKER_BYTES)
        marker = json.loads(data) if data is not None else None
    except (UnsafeFile, ValueError, RecursionError):
        return None
    return marker if isinstance(marker, dict) else None


def ensure_package_index(
    package: Package,
    settings: Settings,
    *,
    progress: Progress | None = None,
    on_wait=None,
) -> PackageBuild:
    """The package's shared index, built (or resumed) unless it is complete.

    `on_wait` is called once before waiting for another process building the same one.
    """
    from wherein.index_fill import fill_index

    started = time.monotonic()
    directory = package_index_dir(package)
    if read_complete(directory) is not None:
        return PackageBuild(package, directory, False, 0, 0.0)
    notices: list[str] = []
    with index_lock(directory, wait=False, notices=notices) as free:
        if not free and on_wait is not None:
            on_wait()
    with index_lock(directory, wait=True, notices=notices):
        if read_complete(directory) is not None:  # the other process finished it
            return PackageBuild(package, directory, False, 0, time.monotonic() - started)
        store = open_store(directory / INDEX_FILE_NAME, verify=True)
        if store.notice:
            notices.append(store.notice)
            store.notice = None
        try:
            _, embedded, pending = fill_index(
                store, [package.root()], settings, notices, progress=progress
            )
            counts = store.counts()
            marker = {
                "ecosystem": package.ecosystem,
                "name": package.name,
                "version": package.version,
                "label": package.label,
                "files": counts["files"],
                "chunks": counts["chunks"],
                "embedder": store.get_meta("embedder"),
                "built_at": time.time(),
            }
        finally:
            store.close()
        if pending:  # the endpoint did not answer: resumed by the next build, never searched
            return PackageBuild(
                package,
                directory,
                True,
                embedded,
                time.monotonic() - started,
                tuple(notices),
                complete=False,
            )
        write_atomic(directory / COMPLETE_FILE_NAME, json.dumps(marker, indent=1).encode())
    return PackageBuild(
        package, directory, True, embedded, time.monotonic() - started, tuple(notices)
    )
