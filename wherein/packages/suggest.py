"""The packages `wherein roots suggest` offers to add with `wherein roots add`.

Python: the distributions that install what the workspace's files import
(`root_suggestions`), those imported by the most files first. Node: the dependencies the
workspace's `package.json` declares that are installed in its `node_modules`, after them.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from wherein.packages.resolve import parse_entry
from wherein.root_suggestions import RootSuggestion
from wherein.safe_files import UnsafeFile, read_regular

__all__ = ["PackageSuggestion", "add_packages_command", "suggest_packages"]

MAX_MANIFEST_BYTES = 1 << 20
DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "peerDependencies")
# The names a suggestion may carry into the printed command: a distribution's name as PEP 508
# writes it, an npm package's as npm accepts it (old mixed-case names included). A name read
# from a planted METADATA or package.json is anything: `--python=tools/py` made the printed
# command run a program of the clone's.
PYTHON_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?")
NPM_NAME = re.compile(
    r"(?:@[A-Za-z0-9~-][A-Za-z0-9._~-]{0,100}/)?[A-Za-z0-9~-][A-Za-z0-9._~-]{0,213}"
)


@dataclass(frozen=True)
class PackageSuggestion:
    """One package to add, as `roots add` takes it, and why."""

    entry: str
    kind: str  # "python" | "node"
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"entry": self.entry, "kind": self.kind, "reason": self.reason}


def suggest_packages(
    workspace: Path, folders: list[RootSuggestion], configured: list[str]
) -> list[PackageSuggestion]:
    """Packages not yet in `configured` (`scope.packages`), largest benefit first."""
    taken = {_name(entry) for entry in configured}
    found: list[PackageSuggestion] = []
    for folder in folders:
        if folder.kind != "python":
            continue
        for provided in folder.distributions:
            name = provided.split(" ", 1)[0]
            if PYTHON_NAME.fullmatch(name) and _name(name) not in taken:
                taken.add(_name(name))
                found.append(PackageSuggestion(name, "python", folder.reason))
    for name in _declared(workspace):
        entry = f"npm:{name}"
        if _name(entry) not in taken and (workspace / "node_modules" / name).is_dir():
            taken.add(_name(entry))
            found.append(PackageSuggestion(entry, "node", "declared in package.json"))
    return found


def add_packages_command(workspace: Path, suggestions: list[PackageSuggestion]) -> str:
    """The one command that adds every suggested package (after `--`: never an option)."""
    names = " ".join(shlex.quote(s.entry) for s in suggestions)
    return f"wherein roots add --workspace {shlex.quote(str(workspace))} -- {names}"


def _declared(workspace: Path) -> list[str]:
    try:
        data = read_regular(workspace / "package.json", max_bytes=MAX_MANIFEST_BYTES)
        manifest = json.loads(data) if data is not None else {}
    except (UnsafeFile, ValueError, RecursionError):  # nested past the parser: malformed too
        return []
    names: list[str] = []
    for field in DEPENDENCY_FIELDS:
        listed = manifest.get(field) if isinstance(manifest, dict) else None
        if isinstance(listed, dict):
            names += [n for n in listed if isinstance(n, str) and NPM_NAME.fullmatch(n)]
    return list(dict.fromkeys(names))


def _name(entry: str) -> str:
    parsed = parse_entry(entry)
    return parsed.name.lower().replace("_", "-") if parsed is not None else entry
