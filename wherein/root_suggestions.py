"""`wherein roots suggest`: library folders a workspace is written against, ready to add.

Python: the packages the workspace's `.py` files import, each as its own root, found in the
site-packages of the active virtualenv (`$VIRTUAL_ENV`) and of virtualenvs at the top of the
workspace, failing both of the `python3` on PATH; those imported by the most files first
(`wherein.python_imports`). Node: the packages the workspace's JavaScript and TypeScript import,
found in the nearest `node_modules` above the importing file. Nothing is added by itself: the
user runs the one printed command.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from wherein.config import all_inside
from wherein.packages.environment import ask_site_packages, venv_site_packages
from wherein.python_imports import imported_names, installed_packages
from wherein.roots import plan_roots
from wherein.workspace import Root, SourceSkipped, WalkReport, read_source, walk_root

__all__ = ["RootSuggestion", "add_command", "suggest_roots"]

SCRIPT_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte")
PYTHON_SUFFIXES = (".py", ".pyi")
# Enough to see what a large front end (or Python project) imports without reading all of it.
MAX_SCRIPT_FILES = 5000
MAX_PYTHON_FILES = 5000
MAX_SCRIPT_BYTES = 256 * 1024
# import x from 'y' / export ... from 'y' / import 'y' / require('y') / import('y'). The
# spaces inside `import (` are the parenthesis's own: two `\s*` side by side took quadratic
# time on a long run of spaces after `import`.
_SPECIFIER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*(?:\(\s*)?|\brequire\s*\(\s*)["']([^"'\s]+)["']"""
)
_PACKAGE = re.compile(r"^(@[\w.-]+/[\w.-]+|[\w.-]+)")


@dataclass(frozen=True)
class RootSuggestion:
    """One folder worth adding to `scope.source_roots`, and why."""

    entry: str  # name=path, as it would be written
    label: str
    path: str
    kind: str  # "python" | "node"
    reason: str
    importers: int | None = None  # python: how many of the workspace's files import it
    distributions: tuple[str, ...] = field(default=())  # python: "name version" of each

    def to_json(self) -> dict[str, str | int | list[str]]:
        shown: dict[str, str | int | list[str]] = {
            "entry": self.entry,
            "label": self.label,
            "path": self.path,
            "kind": self.kind,
            "reason": self.reason,
        }
        if self.importers is not None:
            shown["importers"] = self.importers
            shown["distributions"] = list(self.distributions)
        return shown


def suggest_roots(workspace: Path, configured: list[str]) -> list[RootSuggestion]:
    """Library folders not yet configured (nor inside a configured root), Python first."""
    extra = plan_roots(workspace, configured).extra
    configured_folders = [root.path for root in extra]
    taken = set(configured_folders)
    labels = {root.label for root in extra}
    imports = _read_imports(workspace)
    found = _python_suggestions(workspace, imports.python)
    for package, path in sorted(imports.node.items()):
        label = package.rsplit("/", 1)[-1]
        found.append(_suggestion(workspace, path, label, "node", f"imported as '{package}'"))
    kept: list[RootSuggestion] = []
    for suggestion in found:
        resolved = Path(
            suggestion.path if os.path.isabs(suggestion.path) else workspace / suggestion.path
        ).resolve()
        if resolved in taken or any(resolved.is_relative_to(f) for f in configured_folders):
            continue  # indexed already, whole or as part of a root such as a site-packages
        taken.add(resolved)
        label = _free_label(workspace, suggestion.label, labels)
        labels.add(label)
        kept.append(replace(suggestion, entry=f"{label}={suggestion.path}", label=label))
    return kept


def _python_suggestions(workspace: Path, imports: Counter[str]) -> list[RootSuggestion]:
    """Each imported package found in an environment of the workspace, the first environment
    that has it, those imported by the most files first."""
    chosen: dict[str, RootSuggestion] = {}
    for site, where in _site_packages(workspace):
        in_workspace = _inside(workspace, site)
        wanted = [name for name in imports if name not in chosen]
        for name, package in installed_packages(site, wanted).items():
            if in_workspace and not _inside(workspace, package.path):
                continue  # a clone's venv may link a "package" to the home folder
            count = imports[name]
            provided = ", ".join(package.distributions) or "no distribution lists it"
            reason = f"imported by {count} file{'s' if count != 1 else ''} ({provided}), {where}"
            suggestion = _suggestion(workspace, package.path, name, "python", reason)
            chosen[name] = RootSuggestion(
                "", name, suggestion.path, "python", reason, count, package.distributions
            )
    return sorted(chosen.values(), key=lambda s: (-(s.importers or 0), s.label))


def add_command(workspace: Path, configured: list[str], suggestions: list[RootSuggestion]) -> str:
    """The one command that adds every suggestion to `scope.source_roots`.

    Into the workspace's `.wherein.toml` while every entry lies inside the workspace; else into
    the user's own file, since a workspace file may not name outside folders (SECURITY.md).
    """
    entries = [*configured, *(s.entry for s in suggestions)]
    where = "--workspace-file" if all_inside(workspace, entries) else ""
    return " ".join(
        part
        for part in (
            "wherein config set scope.source_roots",
            shlex.quote(",".join(entries)),
            where,
            f"--workspace {shlex.quote(str(workspace))}",
        )
        if part
    )


def _suggestion(workspace: Path, path: Path, label: str, kind: str, reason: str):
    try:
        shown = path.relative_to(workspace).as_posix()
    except ValueError:
        shown = str(path)
    return RootSuggestion("", label, shown, kind, reason)


def _free_label(workspace: Path, label: str, taken: set[str]) -> str:
    """`label`, or a numbered variant when a root or a top-level folder already has it."""
    candidate, number = label, 1
    while candidate in taken or os.path.isdir(workspace / candidate):
        number += 1
        candidate = f"{label}-{number}"
    return candidate


def _site_packages(workspace: Path) -> list[tuple[Path, str]]:
    places: list[tuple[Path, str]] = []
    active = os.environ.get("VIRTUAL_ENV")
    if active:
        places += [
            (p, "in the active virtualenv ($VIRTUAL_ENV)") for p in venv_site_packages(Path(active))
        ]
    try:
        tops = sorted(p for p in workspace.iterdir() if (p / "pyvenv.cfg").is_file())
    except OSError:
        tops = []
    for venv in tops:
        places += [
            (p, f"in the workspace's virtualenv {venv.name}")
            for p in venv_site_packages(venv)
            if _inside(workspace, p)
        ]
    python = shutil.which("python3") if not places else None  # a fallback, not a third env
    if python:
        # As `roots add` asks it, so the command printed finds what was suggested.
        places += [
            (site, f"in the python3 on PATH ({python})") for site in ask_site_packages(python)
        ]
    seen: set[Path] = set()
    unique = []
    for path, reason in places:
        resolved = path.resolve()
        if resolved not in seen and resolved.is_dir():
            seen.add(resolved)
            unique.append((path, reason))
    return unique


@dataclass
class _Imports:
    """What the workspace's files import, from one walk."""

    node: dict[str, Path] = field(default_factory=dict)  # package -> its node_modules folder
    python: Counter[str] = field(default_factory=Counter)  # top-level module -> files


def _read_imports(workspace: Path) -> _Imports:
    """The node packages resolvable in a node_modules, and the Python modules (other than the
    workspace's own) with how many files import each."""
    found = _Imports()
    own = _own_modules(workspace)
    scripts = python = 0
    for entry in walk_root(Root(workspace), MAX_SCRIPT_BYTES, WalkReport()):
        if scripts >= MAX_SCRIPT_FILES and python >= MAX_PYTHON_FILES:
            break
        is_script = entry.rel.endswith(SCRIPT_SUFFIXES) and scripts < MAX_SCRIPT_FILES
        is_python = entry.rel.endswith(PYTHON_SUFFIXES) and python < MAX_PYTHON_FILES
        if not (is_script or is_python):
            continue
        source = read_source(entry, MAX_SCRIPT_BYTES)  # no link, no FIFO: the walk's reader
        if isinstance(source, SourceSkipped):
            continue
        if is_python:
            python += 1
            found.python.update(imported_names(source.text) - own)
            continue
        scripts += 1
        for specifier in _SPECIFIER.findall(source.text):
            package = _package_name(specifier)
            if package is None or package in found.node:
                continue
            folder = _installed(workspace, entry.path.parent, package)
            if folder is not None:
                found.node[package] = folder
    return found


def _own_modules(workspace: Path) -> set[str]:
    """The modules the workspace itself holds at its top or in `src/`: imports of its own code,
    even when a copy is installed in its virtualenv."""
    names: set[str] = set()
    for folder in (workspace, workspace / "src"):
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    if entry.name.endswith(".py"):
                        names.add(entry.name[:-3])
                    elif entry.is_dir(follow_symlinks=False):
                        names.add(entry.name)
        except OSError:
            continue
    return names


def _package_name(specifier: str) -> str | None:
    if specifier.startswith((".", "/", "node:", "http:", "https:", "data:")):
        return None
    match = _PACKAGE.match(specifier)
    return match.group(1) if match else None


def _installed(workspace: Path, directory: Path, package: str) -> Path | None:
    """The package's folder in the nearest node_modules from `directory` up to the workspace."""
    while True:
        candidate = directory / "node_modules" / package
        if candidate.is_dir() and _inside(workspace, candidate):
            return candidate
        if directory == workspace or workspace not in directory.parents:
            return None
        directory = directory.parent


def _inside(workspace: Path, path: Path) -> bool:
    """Whether `path` really lies in the workspace: a clone can plant `node_modules/x` or a
    venv's `site-packages` as a link to the home folder, and a suggestion is run as printed.
    Links inside it (pnpm's `node_modules/.pnpm/...`) are fine."""
    try:
        return path.resolve().is_relative_to(workspace)
    except (OSError, RuntimeError):
        return False
