"""Carry out a plan (or show it, for `--dry-run`) and say what happened, one line per file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wherein.errors import ConfigError
from wherein.install.change import FileChange
from wherein.install.files import (
    BACKUP_SUFFIX,
    OTHER_BACKUP_SUFFIX,
    delete_file,
    read_text,
    unified_diff,
    write_atomic,
)
from wherein.install.plan import INSTALL, Plan
from wherein.install.record import forget, remember
from wherein.install.statusline import LABEL as STATUS_LINE_LABEL

__all__ = ["Outcome", "apply_plan", "format_outcome"]


@dataclass(frozen=True)
class Outcome:
    """One planned change after the run: whether it was written, and where the backup went."""

    change: FileChange
    written: bool
    backup: Path | None = None


def apply_plan(plan: Plan, dry_run: bool = False) -> list[Outcome]:
    """Write every change of `plan` (none with `dry_run`), in order.

    Raises:
        ConfigError: a file cannot be written; the files before it keep their new content.
    """
    outcomes = []
    for change in plan.changes:
        if dry_run or not change.changed:
            outcomes.append(Outcome(change, written=False))
            continue
        _unchanged_since_read(change)
        backup = None
        if change.after is None:
            # A link of the user's (dotfiles) stays, as install found it: install wrote the
            # file it leads to, and that file is what goes (a project's link is refused).
            linked = change.project is None and change.path.is_symlink()
            delete_file(change.path.resolve() if linked else change.path)
            _remove_empty_dirs(change.created.dirs)
            forget(change.path)
        elif plan.action == INSTALL:
            backup = write_atomic(change.path, change.after, change.before, change.project)
            remember(change.path, change.created)
        else:
            # A project's file lies in a repository, where a `.bak` gets committed: uninstall
            # restores its bytes and drops install's backup of them, leaving no trace.
            kept = None if change.project is not None else change.before
            backup = write_atomic(change.path, change.after, kept, change.project)
            forget(change.path)
            if change.project is not None:
                _drop_backup_of(change.path, change.after, change.project)
        if change.after_write is not None:
            change.after_write()
        outcomes.append(Outcome(change, written=True, backup=backup))
    return outcomes


def _unchanged_since_read(change: FileChange) -> None:
    """Refuse to write over a file that changed since the plan read it: the agent itself
    rewrites its file while it runs (Claude Code's `~/.claude.json`), and what it wrote
    would be lost. Read again just before the write, which narrows the window to that."""
    if read_text(change.path, change.project) != change.before:
        raise ConfigError(
            f"{change.path} changed while wherein was working on it (its agent may have "
            "written it): it was left as it is now. Run the command again."
        )


def _drop_backup_of(path: Path, restored: str, project: Path) -> None:
    """Remove install's backup of `path`: the one of `<path>.bak` and `<path>.wherein.bak`
    that holds exactly the restored text, the other being someone's own (`backup_for`)."""
    for suffix in (OTHER_BACKUP_SUFFIX, BACKUP_SUFFIX):
        backup = path.with_name(path.name + suffix)
        try:
            if read_text(backup, project) == restored:
                delete_file(backup)
                return
        except ConfigError:
            pass  # a link, a folder or another text there: not install's backup, left alone


def format_outcome(plan: Plan, outcomes: list[Outcome], dry_run: bool) -> str:
    """The report printed by `wherein install` / `uninstall`."""
    lines = [f"note: {note}" for note in plan.notes]
    if plan.action == INSTALL:
        lines.append(f"Server command: {' '.join(plan.command)} serve")
    for outcome in outcomes:
        change = outcome.change
        if dry_run and change.changed:
            lines.append(f"{change.label}: would change {change.path}")
            lines.append(unified_diff(change.path, change.before, change.after).rstrip("\n"))
        else:
            lines.append(_describe(plan.action, outcome, dry_run))
    if not outcomes:
        lines.append(
            "Nothing to do: no agent file holds a wherein entry."
            if plan.action != INSTALL
            else "Nothing to do."
        )
    if dry_run:
        lines.append("Dry run: nothing was written.")
    elif plan.action == INSTALL and any(o.written for o in outcomes):
        lines.append(
            "Restart each agent (or reload its MCP servers) to pick up wherein; "
            "'wherein doctor' checks the setup end to end."
        )
    return "\n".join(lines) + "\n"


def _describe(action: str, outcome: Outcome, dry_run: bool) -> str:
    change = outcome.change
    if change.label.startswith(STATUS_LINE_LABEL):
        return _describe_status_line(action, outcome)
    if not change.changed:
        return f"{change.label}: already registered in {change.path}"
    kept = f" (previous version kept as {outcome.backup})" if outcome.backup else ""
    if change.after is None:
        what = "note" if change.label.startswith("instructions") else "entry"
        return f"{change.label}: removed {change.path}, which held only wherein's {what}"
    if action == INSTALL:
        verb = "added to" if change.label.startswith("instructions") else "registered in"
        return f"{change.label}: {verb} {change.path}{kept}"
    return f"{change.label}: removed from {change.path}{kept}"


def _describe_status_line(action: str, outcome: Outcome) -> str:
    change = outcome.change
    kept = f" (previous version kept as {outcome.backup})" if outcome.backup else ""
    if not change.changed:
        return f"{change.label}: already set in {change.path}"
    if change.after is None:
        return f"{change.label}: removed {change.path}, which held only wherein's status line"
    verb = "set in" if action == INSTALL else "taken out of"
    return f"{change.label}: {verb} {change.path}{kept}"


def _remove_empty_dirs(dirs: list[str]) -> None:
    """Remove the folders install created for a file, deepest first, while they are empty."""
    for directory in sorted(dirs, key=len, reverse=True):
        try:
            os.rmdir(directory)
        except OSError:
            return  # not empty (or gone): the folders above it stay too
