"""A `scope.packages` entry resolved to one installed package: its name, version and files.

An entry is `NAME`, `NAME@VERSION` (the installed version must be that one), `npm:NAME` or
`pypi:NAME`; a bare name is looked for as a Python distribution, then as an npm package. The
package's label, `name@version`, is the first segment of its result paths
(`httpx@0.28.1/httpx/_client.py`); a scoped npm name's `/` becomes `+` so the label stays one
folder name (`@types+node@22.1.0`).

Trust (SECURITY.md): an entry from the workspace's own `.wherein.toml` resolves only in the
workspace's own virtualenv and `node_modules` (`inside_only`), so a clone can name packages
but never make wherein read an environment outside it; an entry from the user's file, the
environment or the command line resolves in the environment `wherein.packages.environment`
chooses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from wherein.packages.environment import PythonEnvironment, python_environments
from wherein.packages.npm import NpmPackage, find_npm_package
from wherein.packages.python_dist import (
    DistributionFiles,
    distribution_files,
    find_distribution,
    normalize_name,
)
from wherein.untrusted import NAME_SHOWN, echo, echo_name, one_line
from wherein.workspace import Root

__all__ = ["NPM", "PYPI", "Package", "parse_entry", "resolve_package"]

PYPI = "pypi"
# What may not stand in one folder name of a result path.
_ONE_FOLDER = re.compile(r"[/\\\0]")
NPM = "npm"
ECOSYSTEMS = (PYPI, NPM)


@dataclass(frozen=True)
class PackageName:
    """A parsed entry: which ecosystem (None: either), the name, and a pinned version."""

    ecosystem: str | None
    name: str
    version: str | None


@dataclass(frozen=True)
class Package:
    """An installed package a workspace names: its files are relative to `base`."""

    ecosystem: str
    name: str
    version: str
    base: Path
    files: tuple[str, ...]
    where: str  # the environment it was found in, for messages

    @property
    def label(self) -> str:
        """`name@version` as one folder name: a `/` (a scoped npm name) becomes `+`."""
        return _ONE_FOLDER.sub("+", f"{self.name}@{self.version}")

    @property
    def key(self) -> str:
        """The name as its ecosystem compares it, for noticing a version change."""
        return (
            f"{self.ecosystem}:{normalize_name(self.name) if self.ecosystem == PYPI else self.name}"
        )

    def root(self, files: tuple[str, ...] | None = None) -> Root:
        """The package as a root to walk: all its files, or only `files` (an overlay)."""
        return Root(self.base, self.label, self.files if files is None else files)


def _reads_as_a_name(parsed: PackageName) -> bool:
    """Whether a name and its version read as such (`untrusted.NAME_SHOWN`), not as words."""
    return all(NAME_SHOWN.fullmatch(part) for part in (parsed.name, parsed.version) if part)


def parse_entry(entry: str) -> PackageName | None:
    """`npm:@scope/name@1.2` -> (npm, @scope/name, 1.2); None for an empty entry."""
    text = entry.strip()
    ecosystem = None
    for known in ECOSYSTEMS:
        if text.startswith(known + ":"):
            ecosystem, text = known, text[len(known) + 1 :].strip()
    if not text:
        return None
    at = text.rfind("@")
    if at > 0:
        return PackageName(ecosystem, text[:at], text[at + 1 :] or None)
    return PackageName(ecosystem, text, None)


def resolve_package(
    workspace: Path, entry: str, *, python: str | None, inside_only: bool
) -> Package | str:
    """The package `entry` names, installed for `workspace`, or the sentence saying why not.

    With `inside_only` the entry is the workspace file's: a sentence in it is refused before
    any lookup, shown only by its length (the reasons below quote the name again).
    """
    parsed = parse_entry(entry)
    if inside_only and parsed is not None and not _reads_as_a_name(parsed):
        return f"Package {echo_name(entry)} (scope.packages) is skipped: it is no package name."
    skipped = f"Package {echo(entry)} (scope.packages) is skipped:"
    if parsed is None:
        return f"{skipped} it names nothing. Write NAME, NAME@VERSION or npm:NAME."
    found: Package | None = None
    reasons: list[str] = []
    if parsed.ecosystem in (None, PYPI):
        environments, problem = python_environments(workspace, python, inside_only=inside_only)
        for environment in environments:
            answer = _python_package(parsed.name, environment)
            if isinstance(answer, Package):
                found = answer
                break
            reasons.append(answer)
        if found is None and problem is not None:
            reasons.append(problem)
    if found is None and parsed.ecosystem in (None, NPM):
        npm = find_npm_package(workspace, parsed.name, inside_only=inside_only)
        if isinstance(npm, NpmPackage):
            where = "the workspace's node_modules" + (" (a link, as pnpm makes)" * npm.linked)
            found = Package(NPM, npm.name, npm.version, npm.base, npm.files, where)
        elif parsed.ecosystem == NPM or not reasons:
            reasons.append(npm)
    if found is None:
        return f"{skipped} {'; '.join(one_line(r) for r in reasons)}."
    if parsed.version is not None and parsed.version != found.version:
        return (
            f"{skipped} version {echo(parsed.version)} is named but {echo(found.version)} is "
            f"installed in {found.where}. Name it without a version to follow what is installed."
        )
    return found


def _python_package(name: str, environment: PythonEnvironment) -> Package | str:
    folder = find_distribution(environment.site_packages, name)
    if folder is None:
        return f"no distribution {name!r} is installed in {environment.where}"
    files = distribution_files(folder)
    if not isinstance(files, DistributionFiles):
        return files
    return Package(PYPI, files.name, files.version, files.site, files.files, environment.where)
