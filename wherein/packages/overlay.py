"""Which installed files of a package match its shared index, and the overlay for the rest.

A shared index is searched by a workspace only for the files this workspace has with the
same bytes (sha256) at the same path: someone who patched their site-packages, or a clone
whose `.venv` plants a different `httpx-0.28.1`, never sees another environment's code as
theirs, and never changes what the others see. A file that differs is `stale`: it is indexed
into the workspace's own index under the package's label (the overlay) and the shared copy is
left out of this workspace's search. Hashing every file once per workspace is the cost; after
that a file whose size and mtime are those last verified is not read again (the record is
`packages.json` beside the workspace's index, which also says which shared indexes the
workspace names, for `wherein indexes` and `wherein gc`).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wherein.index.store import FileState
from wherein.safe_files import UnsafeFile, read_regular, write_atomic
from wherein.workspace import FileEntry, SourceText, read_source

if TYPE_CHECKING:
    from wherein.packages.resolve import Package

__all__ = ["STATE_FILE_NAME", "PackageCheck", "check_package", "load_state", "save_state"]

STATE_FILE_NAME = "packages.json"
MAX_STATE_BYTES = 16 << 20


@dataclass(frozen=True)
class PackageCheck:
    """The package's files as installed here: those the shared index holds byte for byte
    (with their size and mtime here), and those that differ or it lacks (`stale`)."""

    matching: Mapping[str, tuple[int, int]]
    stale: tuple[str, ...]
    verified: dict[str, list[Any]]  # rel -> [size, mtime_ns, sha256], for the next check


def check_package(
    package: Package,
    shared: Mapping[str, FileState],
    verified: Mapping[str, Any],
    max_file_bytes: int,
) -> PackageCheck:
    """Compare each installed file of `package` with the shared index's `shared` states."""
    root = package.root()
    matching: dict[str, tuple[int, int]] = {}
    stale: list[str] = []
    kept: dict[str, list[Any]] = {}
    for rel in package.files:
        path = package.base / rel
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_file_bytes:
            continue  # a link or an oversized file is in neither index
        sha = _known_sha(verified.get(rel), info)
        if sha is None:
            source = read_source(
                FileEntry(root, rel, path, info.st_size, info.st_ctime_ns), max_file_bytes
            )
            if not isinstance(source, SourceText):
                continue
            sha = source.sha256
        kept[rel] = [info.st_size, info.st_ctime_ns, sha]
        state = shared.get(root.display(rel))
        if state is not None and state.sha256 == sha:
            matching[rel] = (info.st_size, info.st_ctime_ns)
        else:
            stale.append(rel)
    return PackageCheck(matching, tuple(stale), kept)


def _known_sha(record: Any, info: os.stat_result) -> str | None:
    if not isinstance(record, list) or len(record) != 3:
        return None
    size, mtime_ns, sha = record
    if size == info.st_size and mtime_ns == info.st_ctime_ns and isinstance(sha, str):
        return sha
    return None


def load_state(directory: Path) -> dict[str, Any]:
    """The workspace's package record (`packages.json` in its index directory); {} if none."""
    try:
        data = read_regular(directory / STATE_FILE_NAME, max_bytes=MAX_STATE_BYTES)
        state = json.loads(data) if data is not None else {}
    except (UnsafeFile, ValueError, RecursionError):
        return {}
    return state if isinstance(state, dict) else {}


def save_state(directory: Path, state: dict[str, Any]) -> None:
    """Write the record; a failure costs only a re-hash next time, so it is not an error."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(directory / STATE_FILE_NAME, json.dumps(state).encode(), durable=False)
    except (OSError, UnsafeFile):
        pass
