"""What a workspace's `scope.packages` means for one search or index run.

Each entry is resolved in the workspace's own environment (`resolve`); a package whose shared
index is complete becomes a member of the search (`federation`), with the files that match it
byte for byte and the stale ones to index into the workspace's own index (`overlay`). A
package not yet built is a problem to report ('wherein index' builds it), never built inside a
search: a large library takes minutes. When the installed version changes, the workspace
moves to the new version's index (building it is `wherein index`'s) and says so once.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wherein.config import SOURCE_WORKSPACE, Settings
from wherein.errors import IndexError_
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import Progress
from wherein.index.store import open_store
from wherein.packages.overlay import PackageCheck, check_package, load_state, save_state
from wherein.roots import MAX_PROBLEMS, RootPlan
from wherein.untrusted import capped
from wherein.workspace import Root

if TYPE_CHECKING:
    from wherein.packages.resolve import Package

__all__ = [
    "PackageMember",
    "PackagePlan",
    "build_package_indexes",
    "package_overlay",
    "package_roots",
    "plan_packages",
    "resolve_packages",
]

# Stale files named in a notice; the rest are counted.
MAX_STALE_NAMED = 3


@dataclass(frozen=True)
class PackageMember:
    """A package whose complete shared index a search ranks beside the workspace's own."""

    package: Package
    directory: Path
    check: PackageCheck


@dataclass(frozen=True)
class PackagePlan:
    """The packages of one run: members to search, every resolved root, and what to say."""

    members: tuple[PackageMember, ...] = ()
    roots: tuple[Root, ...] = ()  # every resolved package, so --path and --focus can name it
    problems: tuple[str, ...] = ()

    def with_overlay(self, plan: RootPlan) -> RootPlan:
        """`plan` with each member's stale files as roots of the workspace's own index."""
        overlay = tuple(m.package.root(m.check.stale) for m in self.members if m.check.stale)
        return RootPlan((*plan.roots, *overlay), plan.problems) if overlay else plan


def resolve_packages(workspace: Path, settings: Settings) -> tuple[list[Package], list[str]]:
    """The installed packages `scope.packages` names, one per label, and the entries skipped."""
    # Imported here, as the shared indexes below: a search that names no package (most)
    # needs none of their machinery (subprocess, npm and dist-info readers: 8 ms or more).
    from wherein.packages.resolve import resolve_package

    inside_only = settings.sources.get("scope.packages") == SOURCE_WORKSPACE
    packages: list[Package] = []
    problems: list[str] = []
    labels: set[str] = set()
    for entry in settings["scope.packages"]:
        found = resolve_package(
            workspace, entry, python=settings["scope.python"], inside_only=inside_only
        )
        if isinstance(found, str):
            problems.append(found)
        elif found.label in labels:
            continue  # `httpx` and `pypi:httpx@0.28.1` are one package
        elif os.path.isdir(workspace / found.label):
            problems.append(
                f"Package {found.label} is skipped: a folder of the workspace has that name, so "
                "their result paths would mix. Rename the folder."
            )
        else:
            labels.add(found.label)
            packages.append(found)
    return packages, capped(problems, MAX_PROBLEMS, "skipped packages")


def package_roots(workspace: Path, settings: Settings) -> list[Root]:
    """The roots of the named packages that resolve, for naming one as a folder (the tool's
    `path`), without checking their files."""
    if not settings["scope.packages"]:
        return []
    return [package.root() for package in resolve_packages(workspace, settings)[0]]


def plan_packages(
    workspace: Path, settings: Settings, directory: Path | None = None
) -> PackagePlan:
    """Resolve, check against each shared index, and remember what the workspace names;
    `directory` is the workspace's `index_dir`, when the caller has worked it out."""
    directory = index_dir(workspace) if directory is None else directory
    if not settings["scope.packages"]:
        if load_state(directory).get("packages"):
            save_state(directory, {"packages": {}})  # it names none now: they may be collected
        return PackagePlan()
    from wherein.packages.shared import package_index_dir, read_complete

    packages, problems = resolve_packages(workspace, settings)
    state = load_state(directory)
    said_before = json.dumps(state, sort_keys=True)
    named = state.setdefault("packages", {})
    if not isinstance(named, dict):
        named = state["packages"] = {}
    members: list[PackageMember] = []
    for package in packages:
        shared = package_index_dir(package)
        before = named.get(package.key) if isinstance(named.get(package.key), dict) else {}
        was = before.get("label")
        if read_complete(shared) is None:
            moved = (
                f" (the workspace searched {was} before)" if was and was != package.label else ""
            )
            problems.append(
                f"Package {package.label} has no shared index yet{moved}: run 'wherein index' "
                "to build it once for every workspace; searched without it until then."
            )
            continue
        if was and was != package.label:
            problems.append(
                f"Package {package.name} changed from {was.rsplit('@', 1)[-1]} to "
                f"{package.version} in {package.where}: now searching {package.label}."
            )
        check = _check(package, shared, before, settings["walk.max_file_bytes"])
        if check is None:
            problems.append(
                f"The shared index of {package.label} ({shared}) cannot be read: searched "
                "without it. 'wherein gc' removes it, and 'wherein index' builds it again."
            )
            continue
        named[package.key] = {
            "label": package.label,
            "dir": str(shared),
            "verified": check.verified,
        }
        if check.stale:
            problems.append(_stale_notice(package, check))
        members.append(PackageMember(package, shared, check))
    for key in [k for k in named if k not in {p.key for p in packages}]:
        del named[key]  # no longer named: its shared index may be collected
    if json.dumps(state, sort_keys=True) != said_before:
        save_state(directory, state)
    return PackagePlan(tuple(members), tuple(p.root() for p in packages), tuple(problems))


def _check(package: Package, shared: Path, before: dict, max_file_bytes: int):
    verified = before.get("verified") if before.get("label") == package.label else None
    try:
        store = open_store(shared / INDEX_FILE_NAME)
    except (IndexError_, sqlite3.Error):  # damaged or busy: the caller says it is not used
        return None
    with contextlib.closing(store):
        states = store.file_states()
    return check_package(package, states, verified or {}, max_file_bytes)


def _stale_notice(package: Package, check: PackageCheck) -> str:
    named = ", ".join(check.stale[:MAX_STALE_NAMED])
    more = len(check.stale) - MAX_STALE_NAMED
    if more > 0:
        named += f" and {more} more"
    count = len(check.stale)
    return (
        f"Package {package.label}: {count} installed file{'s' if count != 1 else ''} "
        f"differ{'s' if count == 1 else ''} from its shared index ({named}), edited in place: "
        "stale there, so searched from this workspace's own index instead; the shared index "
        "is left as built."
    )


def package_overlay(workspace: Path, settings: Settings, plan: RootPlan) -> RootPlan:
    """`plan` with the stale files of the named packages added, and what to say about the
    packages among its problems (for `wherein index`)."""
    packages = plan_packages(workspace, settings)
    overlaid = packages.with_overlay(plan)
    return RootPlan(overlaid.roots, (*overlaid.problems, *packages.problems))


def build_package_indexes(
    workspace: Path, settings: Settings, progress: Progress | None = None, on_wait=None
) -> list[str]:
    """Build every named package's shared index that is not complete; what the builds say
    (an entry that does not resolve is said by `package_overlay`, after)."""
    if not settings["scope.packages"]:
        return []
    from wherein.packages.shared import ensure_package_index

    packages, _ = resolve_packages(workspace, settings)
    notices: list[str] = []
    for package in packages:
        build = ensure_package_index(package, settings, progress=progress, on_wait=on_wait)
        notices.extend(build.notices)
        if not build.complete:
            notices.append(
                f"The shared index of {package.label} is not complete (chunks left pending): "
                "'wherein index' resumes it."
            )
        elif build.built:
            notices.append(
                f"Built the shared index of {package.label} ({build.chunks_embedded} chunks "
                f"embedded in {build.seconds:.1f} s), for every workspace that names it."
            )
    return notices
