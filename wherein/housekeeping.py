"""`wherein indexes`, `wherein forget` and `wherein gc`: see and remove the indexes kept.

Every workspace ever searched leaves an index under `$WHEREIN_HOME/workspaces`, and a deleted
or moved project leaves its index behind. `indexes` lists them; `forget` removes one by its
workspace (which may be gone) or its directory name; `gc` removes those whose workspace folder
is gone, after a dry run by default, with `--yes`, or once a person at a terminal says yes.
An index whose workspace is unknown is listed but never collected.

A recorded workspace path is shown through `untrusted.one_line` like any other name, and
JSON through `untrusted.json_text`.
"""

from __future__ import annotations

import argparse
import os
import stat
import time
from pathlib import Path
from typing import Any, TextIO

from wherein.errors import IndexMissing
from wherein.index.catalog import (
    GONE,
    INDEX_DIR_NAME,
    UNKNOWN,
    IndexEntry,
    describe_index,
    list_indexes,
)
from wherein.index.location import WORKSPACES_DIR_NAME, data_home, index_dir
from wherein.packages.catalog import (
    PackageIndexEntry,
    list_package_indexes,
    remove_package_index,
)
from wherein.untrusted import echo, json_text, one_line

__all__ = ["run_housekeeping"]

# The columns of `wherein indexes`; the workspace goes last, as long as it is.
_HEADER = f"{'SIZE':>9}  {'CHUNKS':>8}  {'FAST':>8}  {'FULL':>8}  {'LAST USED':<16}  " + (
    "FOLDER   WORKSPACE"
)


def run_housekeeping(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """Run `indexes` (`list`), `forget` or `gc`; returns the exit code.

    Raises:
        IndexMissing: `forget` names a workspace or directory that has no index.
        WorkspaceError: `forget` without an argument, where no workspace can be chosen.
    """
    home = data_home()
    if args.command in ("indexes", "list"):
        return _indexes(home, args.json, out)
    if args.command == "forget":
        return _forget(home, args.workspace, args.json, out, err)
    return _gc(home, args, stdin, out, err)


def _indexes(home: Path, as_json: bool, out: TextIO) -> int:
    entries = list_indexes(home)
    packages = list_package_indexes(home)
    folder = home / WORKSPACES_DIR_NAME
    if as_json:
        payload = {
            "folder": str(folder),
            "indexes": [entry.to_json() for entry in entries],
            "total_bytes": sum(entry.size_bytes for entry in entries),
            "packages": [package.to_json() for package in packages],
        }
        out.write(json_text(payload) + "\n")
        return 0
    for package in packages:
        out.write(one_line(_package_row(package)) + "\n")
    if not entries:
        out.write(one_line(f"No index under {folder}.") + "\n")
        return 0
    out.write(_HEADER + "\n")
    for entry in entries:
        out.write(one_line(_row(entry)) + "\n")
    total = _size(sum(entry.size_bytes for entry in entries))
    gone = sum(entry.workspace_state == GONE for entry in entries)
    summary = f"{len(entries)} index{'es' if len(entries) != 1 else ''}, {total}, in {folder}."
    if gone:
        summary += f" 'wherein gc' removes the {gone} whose folder is gone."
    out.write(one_line(summary) + "\n")
    return 0


def _row(entry: IndexEntry) -> str:
    def count(value: int | None) -> str:
        return "?" if value is None else f"{value:,}"

    fast, full = (count(entry.tiers.get(name, {}).get("chunks")) for name in ("fast", "full"))
    used = _moment(entry.last_used) if entry.last_used is not None else "not recorded"
    workspace = entry.workspace or f"(unknown) {entry.name}"
    row = (
        f"{_size(entry.size_bytes):>9}  {count(entry.chunks):>8}  {fast:>8}  {full:>8}  "
        f"{used:<16}  {entry.workspace_state:<7}  {workspace}"
    )
    return f"{row}  ({entry.error})" if entry.error else row


def _package_row(entry: PackageIndexEntry) -> str:
    """One shared package index: its size, chunks, and who names it (before the table)."""
    chunks = "?" if entry.chunks is None else f"{entry.chunks:,}"
    state = "complete" if entry.complete else "half-built"
    named = f"named by {len(entry.named_by)}" if entry.named_by else "unnamed: 'wherein gc'"
    label = entry.label or entry.name
    return f"package  {label}  {_size(entry.size_bytes)}, {chunks} chunks, {state}, {named}"


def _forget(home: Path, target: str | None, as_json: bool, out: TextIO, err: TextIO) -> int:
    entry = describe_index(_find(home, target))
    return _remove(home, [entry], as_json, out, err, dry_run=False)


def _find(home: Path, target: str | None) -> Path:
    """The index directory `forget` means: of the chosen workspace, of a folder (which may be
    gone), or a directory name as `wherein indexes` lists it."""
    from wherein.workspace_choice import choose_workspace

    workspaces = home / WORKSPACES_DIR_NAME
    if target is None:
        workspace = choose_workspace(None).path
        directory = index_dir(workspace)
        what = f"the workspace {workspace}"
    else:
        if INDEX_DIR_NAME.match(target) and _real_folder(workspaces / target):
            return workspaces / target
        path = Path(target).expanduser()
        try:
            # A folder that still exists is named as --workspace names it; a gone one by the
            # path it had (links in the part that still exists resolved, as they were then).
            absolute = path.resolve()
        except (OSError, RuntimeError, ValueError):
            absolute = Path(os.path.abspath(path))
        directory = index_dir(absolute)
        what = echo(target)
    if _real_folder(directory):
        return directory
    raise IndexMissing(
        f"No index for {what} in {workspaces}: 'wherein indexes' lists the indexes there are "
        "and the workspace or name to give."
    )


def _real_folder(path: Path) -> bool:
    """A folder, and not a link to one: an index of ours is never reached through a link."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _gc(home: Path, args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    unnamed = [p for p in list_package_indexes(home) if not p.named_by]
    if unnamed and not args.json:
        _gc_packages(home, unnamed, args.yes, out, err)
    entries = list_indexes(home)
    gone = [entry for entry in entries if entry.workspace_state == GONE]
    unknown = [entry for entry in entries if entry.workspace_state == UNKNOWN]
    note = (
        f"{len(unknown)} index{'es' if len(unknown) != 1 else ''} of an unknown workspace "
        "kept; 'wherein forget NAME' removes one."
        if unknown
        else None
    )
    if args.json:
        packages = {"packages": [p.name for p in unnamed], "packages_removed": []}
        for entry in unnamed if args.yes else []:
            if remove_package_index(entry, home).removed:
                packages["packages_removed"].append(entry.name)
        return _remove(
            home, gone, True, out, err, dry_run=not args.yes, unknown=unknown, extra=packages
        )
    if not gone:
        kept = f"{len(entries)} index{'es' if len(entries) != 1 else ''}"
        out.write(f"No index to remove: every known workspace folder is still there ({kept}).\n")
        if note:
            out.write(note + "\n")
        return 0
    out.write(f"Indexes whose workspace folder is gone ({_size(_total(gone))}):\n")
    for entry in gone:
        out.write(one_line(f"  {entry.workspace}  {_size(entry.size_bytes)}, {entry.name}") + "\n")
    if note:
        out.write(note + "\n")
    remove = args.yes or (_is_terminal(stdin) and _is_terminal(out) and _confirm(stdin, out, gone))
    if not remove:
        out.write("Dry run: nothing removed. Run 'wherein gc --yes' to remove them.\n")
        return 0
    return _remove(home, gone, False, out, err, dry_run=False)


def _gc_packages(
    home: Path, unnamed: list[PackageIndexEntry], yes: bool, out: TextIO, err: TextIO
) -> None:
    """List (and with `--yes` remove) the shared package indexes no workspace names."""
    out.write("Shared package indexes no workspace names any more:\n")
    for entry in unnamed:
        out.write(one_line(f"  {entry.label or entry.name}  {_size(entry.size_bytes)}") + "\n")
    if not yes:
        out.write("Dry run: kept. Run 'wherein gc --yes' to remove them.\n")
    for entry in unnamed if yes else []:
        outcome = remove_package_index(entry, home)
        stream, said = (out, "Removed") if outcome.removed else (err, "wherein: kept")
        why = "" if outcome.removed else f": {outcome.reason}"
        stream.write(one_line(f"{said} the shared index {entry.name}{why}.") + "\n")


def _confirm(stdin: TextIO, out: TextIO, gone: list[IndexEntry]) -> bool:
    out.write(f"Remove these {len(gone)} indexes? [y/N] ")
    out.flush()
    answer = stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _remove(
    home: Path,
    entries: list[IndexEntry],
    as_json: bool,
    out: TextIO,
    err: TextIO,
    *,
    dry_run: bool,
    unknown: list[IndexEntry] | None = None,
    extra: dict[str, Any] | None = None,
) -> int:
    """Remove `entries` (unless `dry_run`), report as text or JSON; 1 when any was left."""
    from wherein.index.removal import remove_index

    removed: list[IndexEntry] = []
    skipped: list[dict[str, Any]] = []
    for entry in [] if dry_run else entries:
        outcome = remove_index(entry.path, home)
        if outcome.removed:
            removed.append(entry)
        else:
            skipped.append({"name": entry.name, "kind": outcome.kind, "reason": outcome.reason})
            if not as_json:
                whose = entry.workspace or entry.name
                err.write(one_line(f"wherein: kept the index of {whose}: {outcome.reason}.") + "\n")
        if outcome.removed and not as_json:
            whose = entry.workspace or f"an unknown workspace ({entry.name})"
            out.write(one_line(f"Removed the index of {whose} ({_size(entry.size_bytes)}).") + "\n")
    if as_json:
        payload: dict[str, Any] = {
            "dry_run": dry_run,
            "indexes": [entry.to_json() for entry in entries],
            "removed": [entry.name for entry in removed],
            "skipped": skipped,
            "freed_bytes": _total(removed),
        }
        if unknown is not None:
            payload["unknown"] = [entry.name for entry in unknown]
        payload.update(extra or {})
        out.write(json_text(payload) + "\n")
    elif len(removed) > 1:
        out.write(f"Freed {_size(_total(removed))}.\n")
    return 1 if skipped else 0


def _total(entries: list[IndexEntry]) -> int:
    return sum(entry.size_bytes for entry in entries)


def _size(count: int) -> str:
    """Bytes for a person: "512 B", "77.8 KB", "1.2 GB" (powers of 1000, as `du --si`)."""
    if count < 1000:
        return f"{count} B"
    for power, unit in ((3, "GB"), (2, "MB")):
        if count >= 1000**power:
            return f"{count / 1000**power:.1f} {unit}"
    return f"{count / 1000:.1f} KB"


def _moment(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))
