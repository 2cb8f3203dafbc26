"""`wherein roots suggest`: library folders a workspace is written against, ready to add.

Python: the site-packages of the active virtualenv (`$VIRTUAL_ENV`) and of virtualenvs at the
top of the workspace; failing both, of the `python3` on PATH. Node: the packages the workspace's
JavaScript and TypeScript import, found in the nearest `node_modules` above the importing
file. Nothing is added by itself: the user runs the one printed command.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from wherein.config import all_inside
from wherein.roots import plan_roots
from wherein.workspace import Root, WalkReport, read_source, walk_root

__all__ = ["RootSuggestion", "add_command", "suggest_roots"]

SCRIPT_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte")
# Enough to see what a large front end imports without reading all of it.
MAX_SCRIPT_FILES = 5000
MAX_SCRIPT_BYTES = 256 * 1024
# `python3 -c ...` through a version manager's shim can take a second; never hang on it.
PYTHON_PROBE_TIMEOUT_S = 10.0
_PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
# import x from 'y' / export ... from 'y' / import 'y' / require('y') / import('y')
_SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\s]+)["']""")
_PACKAGE = re.compile(r"^(@[\w.-]+/[\w.-]+|[\w.-]+)")


@dataclass(frozen=True)
class RootSuggestion:
    """One folder worth adding to `scope.source_roots`, and why."""

    entry: str  # name=path, as it would be written
    label: str
    path: str
    kind: str  # "python" | "node"
    reason: str

    def to_json(self) -> dict[str, str]:
        return {
            "entry": self.entry,
            "label": self.label,
            "path": self.path,
            "kind": self.kind,
            "reason": self.reason,
        }


def suggest_roots(workspace: Path, configured: list[str]) -> list[RootSuggestion]:
    """Library folders not yet configured, Python environments first."""
    extra = plan_roots(workspace, configured).extra
    taken = {root.path for root in extra}
    labels = {root.label for root in extra}
    found: list[RootSuggestion] = []
    for path, reason in _site_packages(workspace):
        found.append(_suggestion(workspace, path, "site-packages", "python", reason))
    for package, path in _imported_packages(workspace):
        label = package.rsplit("/", 1)[-1]
        found.append(_suggestion(workspace, path, label, "node", f"imported as '{package}'"))
    kept: list[RootSuggestion] = []
    for suggestion in found:
        resolved = Path(
            suggestion.path if os.path.isabs(suggestion.path) else workspace / suggestion.path
        ).resolve()
        if resolved in taken:
            continue
        taken.add(resolved)
        label = _free_label(workspace, suggestion.label, labels)
        labels.add(label)
        kept.append(
            RootSuggestion(
                f"{label}={suggestion.path}",
                label,
                suggestion.path,
                suggestion.kind,
                suggestion.reason,
            )
        )
    return kept


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
        places += [(p, "the active virtualenv ($VIRTUAL_ENV)") for p in _purelibs(Path(active))]
    try:
        tops = sorted(p for p in workspace.iterdir() if (p / "pyvenv.cfg").is_file())
    except OSError:
        tops = []
    for venv in tops:
        places += [
            (p, f"the workspace's virtualenv {venv.name}")
            for p in _purelibs(venv)
            if _inside(workspace, p)
        ]
    python = shutil.which("python3") if not places else None  # a fallback, not a third env
    if python:
        purelib = _ask_python(python)
        if purelib is not None:
            places.append((purelib, f"the python3 on PATH ({python})"))
    seen: set[Path] = set()
    unique = []
    for path, reason in places:
        resolved = path.resolve()
        if resolved not in seen and resolved.is_dir():
            seen.add(resolved)
            unique.append((path, reason))
    return unique


def _purelibs(prefix: Path) -> list[Path]:
    return sorted(prefix.glob("lib/python3*/site-packages")) + sorted(
        prefix.glob("Lib/site-packages")
    )


def _ask_python(python: str) -> Path | None:
    try:
        done = subprocess.run(
            [python, "-c", _PURELIB],
            capture_output=True,
            text=True,
            timeout=PYTHON_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip()
    return Path(text) if done.returncode == 0 and text else None


def _imported_packages(workspace: Path) -> list[tuple[str, Path]]:
    """(package name, its folder) for each bare import resolvable in a node_modules."""
    found: dict[str, Path] = {}
    scripts = 0
    for entry in walk_root(Root(workspace), MAX_SCRIPT_BYTES, WalkReport()):
        if not entry.rel.endswith(SCRIPT_SUFFIXES):
            continue
        scripts += 1
        if scripts > MAX_SCRIPT_FILES:
            break
        source = read_source(entry, MAX_SCRIPT_BYTES)  # no link, no FIFO: the walk's reader
        if isinstance(source, str):
            continue
        for specifier in _SPECIFIER.findall(source.text):
            package = _package_name(specifier)
            if package is None or package in found:
                continue
            folder = _installed(workspace, entry.path.parent, package)
            if folder is not None:
                found[package] = folder
    return sorted(found.items())


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
