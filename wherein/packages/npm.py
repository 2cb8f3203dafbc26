"""One npm package under the workspace's `node_modules`: its `package.json` name, version, files.

The package is the folder `node_modules/NAME` (`@scope/name` for a scoped one). pnpm makes that
a link into `node_modules/.pnpm/NAME@VERSION/node_modules/NAME`: the link is followed once, to
the package's real folder, which must still lie inside the workspace when the name comes from
the workspace's own file. Nested `node_modules` are other packages and are not listed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from wherein.packages.files import list_folder_files
from wherein.safe_files import UnsafeFile, read_regular

__all__ = ["NpmPackage", "find_npm_package"]

MAX_PACKAGE_JSON_BYTES = 1 << 20
# More files than this in one npm package is a bundle of many (a monorepo's build output).
MAX_NPM_FILES = 20_000
# Generated files an agent never needs to read: source maps and minified copies.
NOT_SOURCE_ENDINGS = (".map", ".min.js", ".min.mjs", ".png", ".jpg", ".gif", ".woff", ".woff2")


@dataclass(frozen=True)
class NpmPackage:
    """An installed npm package: `base` holds `name`'s folder, `files` are relative to `base`."""

    name: str
    version: str
    base: Path
    files: tuple[str, ...]
    linked: bool  # node_modules/NAME is a link (pnpm)


def find_npm_package(workspace: Path, name: str, *, inside_only: bool) -> NpmPackage | str:
    """The package `name` in the workspace's top `node_modules`, or why it cannot be used."""
    if not _is_package_name(name):
        return f"{name!r} is not an npm package name"
    given = workspace / "node_modules" / name
    if not given.is_dir():
        return f"it is not installed in {workspace / 'node_modules'}"
    folder = given.resolve()
    if inside_only and not folder.is_relative_to(workspace.resolve()):
        return (
            f"node_modules/{name} leads outside the workspace ({folder}), and names from the "
            "workspace's .wherein.toml resolve only inside it: add it to your own config with "
            f"'wherein roots add npm:{name} --user'"
        )
    try:
        data = read_regular(folder / "package.json", max_bytes=MAX_PACKAGE_JSON_BYTES)
        manifest = json.loads(data) if data is not None else None
    except (UnsafeFile, ValueError, RecursionError) as err:  # nested past the parser too
        return f"its package.json cannot be read ({err})"
    if not isinstance(manifest, dict) or not isinstance(manifest.get("version"), str):
        return f"{folder / 'package.json'} gives no version"
    listed = list_folder_files(folder, MAX_NPM_FILES + 1)
    if len(listed) > MAX_NPM_FILES:
        return f"it holds more than {MAX_NPM_FILES:,} files: add the folder you need instead"
    depth = name.count("/") + 1  # the base is the folder holding `name` (and its scope)
    base = folder.parents[depth - 1]
    kept = (rel for rel in listed if not rel.lower().endswith(NOT_SOURCE_ENDINGS))
    files = tuple(sorted(f"{name}/{rel}" for rel in kept))
    shown = manifest.get("name") if isinstance(manifest.get("name"), str) else name
    return NpmPackage(shown, manifest["version"], base, files, given.is_symlink())


def _is_package_name(name: str) -> bool:
    parts = name.split("/")
    if len(parts) == 2 and not parts[0].startswith("@"):
        return False
    return 0 < len(parts) <= 2 and all(p and p not in (".", "..") for p in parts)
