"""Which installed Python packages a workspace imports, and which distributions install them.

`wherein roots suggest` offers each imported package as its own root (`httpx=.venv/.../httpx`)
instead of a whole site-packages: a project that imports five libraries gains their code, not
the 77,000 chunks of everything installed beside them. The imports come from the workspace's
`.py` files (absolute `import x` and `from x import`, read as text, never run); the names are
matched to package folders of the environment's site-packages, and to the distributions that
install them the way `importlib.metadata.packages_distributions()` does: `top_level.txt`, else
the top folders of `RECORD`.

`packages_distributions()` itself reads the running interpreter's environment, with plain
reads; here the site-packages is the workspace's and may be a clone's own `.venv`. So the
metadata is read through `importlib.metadata.Distribution` with a reader that opens only
regular files, bounded, without following a link (`safe_files`).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from wherein.safe_files import UnsafeFile, read_regular

__all__ = ["BoundedDistribution", "InstalledPackage", "imported_names", "installed_packages"]

# RECORD lists every installed file: large for a large distribution (a few MB), bounded.
MAX_METADATA_BYTES = 16 << 20
# Distribution names as shown: a name is short; more is not a name.
MAX_NAME_CHARS = 100
METADATA_SUFFIXES = (".dist-info", ".egg-info")

# The dotted rest begins at a dot: were it `[A-Za-z0-9_.]*` right after the name, the two
# would share a long run of letters, and a line of them with no `import` would take
# quadratic time.
_FROM = re.compile(
    r"^[ \t]*from[ \t]+([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_.]*)?[ \t]+import\b", re.M
)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class InstalledPackage:
    """An imported top-level package found as a folder of one site-packages."""

    name: str  # the import name, which is the folder's name
    path: Path
    distributions: tuple[str, ...]  # "httpx 0.27.0", each that installs files in it


def imported_names(text: str) -> set[str]:
    """The top-level modules one Python file imports absolutely (`import a.b`, `from a import`).

    Read by pattern, not parsed: a file that does not parse still says what it needs, and a
    hostile one costs one pass of two regular expressions.
    """
    names = set(_FROM.findall(text))
    for listed in _IMPORT.findall(text):
        for item in listed.replace("(", " ").replace(")", " ").split(","):
            match = _IDENTIFIER.match(item.strip())
            if match:
                names.add(match.group())
    return names


def installed_packages(site: Path, wanted: Iterable[str]) -> dict[str, InstalledPackage]:
    """Of the `wanted` import names, those that are a package folder in `site`. A link is
    taken as the environment has it: a caller judges where it leads (`_inside`)."""
    folders: dict[str, Path] = {}
    for name in wanted:
        folder = site / name
        if _is_folder(folder):
            folders[name] = folder
    if not folders:
        return {}
    providers = _providers(site, set(folders))
    return {
        name: InstalledPackage(name, folder, tuple(sorted(providers.get(name, ()))))
        for name, folder in folders.items()
    }


class BoundedDistribution(importlib.metadata.Distribution):
    """One `*.dist-info` or `*.egg-info` folder, its files read by `safe_files`."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def read_text(self, filename: str | os.PathLike[str]) -> str | None:
        if not str(filename):  # `metadata` asks for the folder itself last: an old egg-info file
            return ""
        try:
            data = read_regular(self._folder / filename, max_bytes=MAX_METADATA_BYTES)
        except UnsafeFile:
            return None
        return None if data is None else data.decode("utf-8", "replace")

    def locate_file(self, path: str | os.PathLike[str]) -> Path:
        return self._folder.parent / path


def _providers(site: Path, names: set[str]) -> dict[str, set[str]]:
    """For each of `names`, the distributions (as "name version") whose files lie under it."""
    found: dict[str, set[str]] = {}
    try:
        with os.scandir(site) as listing:
            folders = [
                site / entry.name
                for entry in listing
                if entry.name.endswith(METADATA_SUFFIXES) and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return found
    for folder in sorted(folders):
        distribution = BoundedDistribution(folder)
        tops = _top_level(distribution) & names
        if tops:
            label = _label(distribution, folder)
            for top in tops:
                found.setdefault(top, set()).add(label)
    return found


def _top_level(distribution: importlib.metadata.Distribution) -> set[str]:
    """The import names a distribution installs: declared in `top_level.txt`, else the first
    folder (or module) of each Python file its RECORD lists."""
    declared = distribution.read_text("top_level.txt")
    if declared:
        return {line.strip() for line in declared.splitlines() if line.strip()}
    try:
        files = distribution.files or []
    except (ValueError, TypeError):  # a RECORD csv module or PackagePath cannot read
        return set()
    return {
        f.parts[0] if len(f.parts) > 1 else f.with_suffix("").name
        for f in files
        if f.suffix == ".py"
    }


def _label(distribution: importlib.metadata.Distribution, folder: Path) -> str:
    """The distribution's "name version" from METADATA, else from the folder's own name."""
    try:
        metadata = distribution.metadata
        name, version = metadata.get("Name"), metadata.get("Version")
    except (ValueError, TypeError, KeyError):
        name = version = None
    if not name:
        stem = folder.name.rsplit(".", 1)[0]
        name, _, version = stem.partition("-")
    text = f"{name} {version}" if version else str(name)
    return text[:MAX_NAME_CHARS]


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False
