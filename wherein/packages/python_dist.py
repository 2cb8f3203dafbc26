"""One installed Python distribution's own source files, read from its metadata folder.

`importlib.metadata` in the workspace's own interpreter would need a subprocess per lookup
(about 40 ms each, scripts/bench_packages.py); the same answer is in the files it reads, so
the `*.dist-info` folders of the site-packages are read directly, through
`python_imports.BoundedDistribution` (regular files only, bounded, no link followed). The
files are the distribution's `RECORD` entries that are source: no byte code, no shared
libraries, nothing in the metadata folder, nothing outside the site-packages (`../../bin`).
Without a `RECORD`, the folders `top_level.txt` names are listed instead, unless one is a
namespace folder other distributions share, whose own files cannot then be told apart.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wherein.packages.files import is_plain_relative, list_folder_files

if TYPE_CHECKING:
    from wherein.python_imports import BoundedDistribution

__all__ = ["DistributionFiles", "distribution_files", "find_distribution", "normalize_name"]

METADATA_SUFFIXES = (".dist-info", ".egg-info")
# Installed files that are not source to search: byte code, native code, archives, images.
NOT_SOURCE_SUFFIXES = frozenset(
    {
        ".pyc",
        ".pyo",
        ".so",
        ".pyd",
        ".dll",
        ".dylib",
        ".a",
        ".lib",
        ".exe",
        ".pth",
        ".whl",
        ".zip",
        ".gz",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".ico",
        ".mo",
        ".ttf",
        ".woff",
        ".woff2",
        ".db",
        ".bin",
        ".npy",
    }
)
# A distribution with more source files than this is refused, not half-indexed: the largest
# pure-Python distributions (botocore, about 3,000 files) stay well below.
MAX_DISTRIBUTION_FILES = 20_000


@dataclass(frozen=True)
class DistributionFiles:
    """A distribution's name and version as its METADATA spells them, and its source files."""

    name: str
    version: str
    site: Path
    files: tuple[str, ...]


def normalize_name(name: str) -> str:
    """The distribution name as PEP 503 compares it: `Foo.Bar_baz` -> `foo-bar-baz`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def find_distribution(sites: tuple[Path, ...], name: str) -> Path | None:
    """The metadata folder of the distribution `name` in the first of `sites` that has it."""
    wanted = normalize_name(name)
    for site in sites:
        try:
            with os.scandir(site) as listing:
                folders = sorted(
                    entry.name
                    for entry in listing
                    if entry.name.endswith(METADATA_SUFFIXES)
                    and entry.is_dir(follow_symlinks=False)
                )
        except OSError:
            continue
        for folder in folders:
            stem = folder.rsplit(".", 1)[0]
            if normalize_name(stem.split("-", 1)[0]) == wanted:
                return site / folder
    return None


def distribution_files(folder: Path) -> DistributionFiles | str:
    """The distribution at `folder`'s own source files, or why they cannot be named."""
    # Imported here, as `urllib.request` below: the two (importlib.metadata; http.client,
    # email and ssl) cost 25 ms, which only a lookup of a distribution's files needs.
    from wherein.python_imports import MAX_NAME_CHARS, BoundedDistribution

    distribution = BoundedDistribution(folder)
    site = folder.parent
    try:
        metadata = distribution.metadata
        name, version = metadata.get("Name"), metadata.get("Version")
    except (ValueError, TypeError, KeyError):
        name = version = None
    if not name or not version:
        return f"its metadata {folder.name}/METADATA gives no Name and Version"
    if len(name) > MAX_NAME_CHARS or len(version) > MAX_NAME_CHARS:
        return f"its metadata {folder.name}/METADATA gives a Name or Version too long to be one"
    editable = _editable_source(distribution)
    if editable is not None:
        return (
            f"{name} {version} is an editable install of {editable}: its code is that folder, "
            "not the site-packages. If it is not this workspace, add it as a folder with "
            f"'wherein config set scope.source_roots {editable}'"
        )
    record = distribution.read_text("RECORD")
    if record is not None:
        files = _source_files(line.split(",", 1)[0] for line in record.splitlines())
        if not files:
            return (
                f"{name} {version} installs no source file (its RECORD lists only byte code, "
                "native libraries or metadata)"
            )
    else:
        listed = _top_level_files(distribution, site, name)
        if isinstance(listed, str):
            return listed
        files = listed
    if len(files) > MAX_DISTRIBUTION_FILES:
        return (
            f"{name} {version} lists {len(files):,} source files, more than the "
            f"{MAX_DISTRIBUTION_FILES:,} a package root takes: add the folder you need with "
            "scope.source_roots"
        )
    return DistributionFiles(name, version, site, files)


def _source_files(entries) -> tuple[str, ...]:
    kept = set()
    for raw in entries:
        rel = raw.strip().strip('"')
        if not is_plain_relative(rel):
            continue  # outside the site-packages (scripts in ../../bin) or malformed
        parts = rel.split("/")
        if parts[0].endswith(METADATA_SUFFIXES) or "__pycache__" in parts:
            continue
        if os.path.splitext(rel)[1].lower() in NOT_SOURCE_SUFFIXES:
            continue
        kept.add(rel)
    return tuple(sorted(kept))


def _editable_source(distribution: BoundedDistribution) -> str | None:
    """The source folder of an editable install (PEP 610 `direct_url.json`), else None."""
    text = distribution.read_text("direct_url.json")
    if not text:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: arrays nested past the parser
        return None
    if not isinstance(data, dict) or not isinstance(data.get("dir_info"), dict):
        return None
    if not data["dir_info"].get("editable"):
        return None
    url = data.get("url")
    if not isinstance(url, str) or not url.startswith("file:"):
        return "a folder it does not name"
    from urllib.request import url2pathname

    return url2pathname(urllib.parse.urlparse(url).path)


def _top_level_files(
    distribution: BoundedDistribution, site: Path, name: str
) -> tuple[str, ...] | str:
    """Without a RECORD: the files of the folders (or modules) `top_level.txt` names."""
    declared = distribution.read_text("top_level.txt") or ""
    tops = [line.strip() for line in declared.splitlines() if line.strip()]
    if not tops:
        guess = name.replace("-", "_").lower()
        tops = [guess] if (site / guess).is_dir() or (site / f"{guess}.py").is_file() else []
    if not tops:
        return (
            f"{name} has no RECORD and no top_level.txt, so its files cannot be told from the "
            "rest of the site-packages: reinstall it with pip, which writes a RECORD"
        )
    files: list[str] = []
    for top in tops:
        if not is_plain_relative(top) or "/" in top:
            continue
        folder = site / top
        if (site / f"{top}.py").is_file() and not (site / f"{top}.py").is_symlink():
            files.append(f"{top}.py")
        elif folder.is_dir() and not folder.is_symlink():
            if not (folder / "__init__.py").is_file():
                return (
                    f"{name} has no RECORD and its folder {top!r} is a namespace package "
                    "other distributions may share, so its own files cannot be told apart: "
                    "reinstall it with pip, which writes a RECORD"
                )
            listed = list_folder_files(folder, MAX_DISTRIBUTION_FILES + 1)
            files.extend(f"{top}/{rel}" for rel in listed)
    return _source_files(files)
