"""Work out every file change of an install or uninstall before writing any of them.

Each agent file is read and parsed first; one that does not parse stops the whole run with a
message naming it, so nothing is half-installed and no broken file is touched. An entry that
already says what install would write is left alone, which makes a second install a no-op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wherein.errors import ConfigError, UsageError
from wherein.install.agents import PINNED, PROJECT, REGISTRY, USER, Agent
from wherein.install.change import FileChange, missing_dirs
from wherein.install.files import BACKUP_SUFFIX, OTHER_BACKUP_SUFFIX, read_text
from wherein.install.instructions import with_snippet, without_snippet
from wherein.install.jsonc import parse_json_document
from wherein.install.record import Created, created_in
from wherein.install.statusline import plan_statusline, plan_statusline_removal
from wherein.install.tomlfile import parse_toml_document
from wherein.untrusted import one_line

__all__ = [
    "INSTALL",
    "SERVER_NAME",
    "UNINSTALL",
    "Plan",
    "plan_install",
    "plan_uninstall",
    "read_entry",
]

SERVER_NAME = "wherein"
INSTALL = "install"
UNINSTALL = "uninstall"


@dataclass
class Plan:
    """Everything one `install` or `uninstall` run would do."""

    action: str
    command: list[str]
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def plan_install(
    names: list[str],
    scope: str,
    workspace: Path,
    command: list[str],
    with_instructions: bool = False,
    statusline: bool = False,
    force: bool = False,
) -> Plan:
    """The changes that register `command serve` with the named (or detected) agents, and with
    `statusline`, `command statusline` as Claude Code's status line (`force`: replacing one
    the user has; see `install/statusline.py`).

    Raises:
        UsageError: an unknown agent, an agent without a file at `scope`, or no agent found;
            `statusline` without Claude Code, or over another status line without `force`.
        ConfigError: an agent file does not parse or cannot be read.
    """
    plan = Plan(INSTALL, command)
    instruction_files: dict[Path, list[str]] = {}
    shown = one_line(str(workspace))  # a folder's name may hold a newline: one line in notes
    agents = _select(names, workspace, plan)
    if statusline:
        if REGISTRY["claude"] not in agents:
            raise UsageError(
                "--statusline sets Claude Code's status line, and Claude Code is not among the "
                "agents: run 'wherein install claude --statusline'."
            )
        plan.changes.append(plan_statusline(scope, workspace, command, force))
    for agent in agents:
        path = agent.config_file(scope, workspace)
        if path is None:
            other = "project" if scope == USER else "user"
            if names:
                raise UsageError(
                    f"{agent.title} has no {scope}-level MCP config file. Run 'wherein install "
                    f"{agent.name} --{other}' instead."
                )
            plan.notes.append(
                f"Skipped {agent.title}: it has no {scope}-level MCP config file "
                f"('wherein install {agent.name} --{other}' registers it)."
            )
            continue
        if agent.workspace == PINNED and workspace in (Path.home().resolve(), Path("/")):
            # Pinning the home folder (or "/") would have the agent index all of it.
            message = (
                f"{agent.title} needs the project named in its entry, and {shown} is not a "
                f"project. Run 'wherein install {agent.name}' inside a repository, or pass "
                "--workspace."
            )
            if names:
                raise UsageError(message)
            plan.notes.append(f"Skipped {agent.title}: {message}")
            continue
        plan.changes.append(_install_change(agent, scope, path, workspace, command))
        if agent.workspace == PINNED and scope == USER:
            plan.notes.append(
                f"{agent.title} starts servers outside the project, so its entry names this "
                f"workspace ({shown}); run 'wherein install {agent.name}' in another "
                "repository to point it there."
            )
        if with_instructions:
            target = agent.instructions_file(scope, workspace)
            if target is None:
                plan.notes.append(f"No {scope}-level instruction file is read by {agent.title}.")
            else:
                instruction_files.setdefault(target, []).append(agent.title)
    project = _project(scope, workspace)
    for path, titles in instruction_files.items():
        before = read_text(path, project)
        created = Created(file=before is None, dirs=missing_dirs(path))
        label = f"instructions for {', '.join(titles)}"
        after = with_snippet(before)
        plan.changes.append(FileChange(label, path, before, after, created, project))
    return plan


def plan_uninstall(
    names: list[str], scopes: tuple[str, ...], workspace: Path, statusline_only: bool = False
) -> Plan:
    """The changes that remove wherein's entries, its instruction snippet and its Claude Code
    status line again (`statusline_only`: the status line alone).

    Raises:
        UsageError: an unknown agent.
        ConfigError: a file holding an entry does not parse or cannot be read.
    """
    plan = Plan(UNINSTALL, [])
    seen: set[Path] = set()
    for agent in _select(names, workspace, plan, uninstall=True):
        if agent.name == "claude":
            for scope in scopes:
                removal = plan_statusline_removal(scope, workspace)
                if removal is not None:
                    plan.changes.append(removal)
        if statusline_only:
            continue
        for scope in scopes:
            path = agent.config_file(scope, workspace)
            project = _project(scope, workspace)
            if path is not None:
                change = _uninstall_change(agent, scope, path, project)
                if change is not None:
                    plan.changes.append(change)
            target = agent.instructions_file(scope, workspace)
            if target is not None and target not in seen:
                seen.add(target)
                before = read_text(target, project)
                if before is not None and before != without_snippet(before):
                    after: str | None = _restored_instructions(target, before, project)
                    created = created_in(target)
                    if created.file and not after.strip():
                        after = None
                    plan.changes.append(
                        FileChange("instructions", target, before, after, created, project)
                    )
    return plan


def _restored_instructions(path: Path, text: str, project: Path | None) -> str:
    """`text` without wherein's snippet: install's backup of the file when `text` is exactly
    what install made of it, for the snippet's removal cannot tell whether the file ended in
    a newline before (it gained one, and the backup was left in the repository)."""
    for suffix in (OTHER_BACKUP_SUFFIX, BACKUP_SUFFIX):
        try:
            kept = read_text(path.with_name(path.name + suffix), project)
        except ConfigError:
            continue
        if kept is not None and with_snippet(kept) == text:
            return kept
    return without_snippet(text)


def _restored_table(
    agent: Agent, path: Path, text: str, key: tuple[str, ...], project: Path | None
) -> str | None:
    """Install's backup of a TOML file when `text` is exactly what install made of it: cutting
    the table cannot tell whether the file ended in a newline before (as `_restored_instructions`
    says for the snippet); None when no backup is that."""
    entry = _document(agent, path, text).get(key)
    for suffix in (OTHER_BACKUP_SUFFIX, BACKUP_SUFFIX):
        try:
            kept = read_text(path.with_name(path.name + suffix), project)
            document = None if kept is None else _document(agent, path, kept)
            if (
                document is not None
                and document.get(key) is None
                and document.with_table(key, entry) == text
            ):
                return kept
        except ConfigError:
            continue  # a link, a folder or a file that does not parse: not install's backup
    return None


def read_entry(agent: Agent, path: Path, project: Path | None = None) -> dict[str, Any] | None:
    """The `wherein` entry in `path`, or None (no file or no entry); `project` as `read_text`.

    Raises:
        ConfigError: the file does not parse or cannot be read.
    """
    text = read_text(path, project)
    if text is None:
        return None
    entry = _document(agent, path, text).get((*agent.servers_key, SERVER_NAME))
    return entry if isinstance(entry, dict) else None


def _select(names: list[str], workspace: Path, plan: Plan, uninstall: bool = False) -> list[Agent]:
    if names:
        unknown = [name for name in names if name not in REGISTRY]
        if unknown:
            raise UsageError(
                f"Unknown agent '{unknown[0]}'. Choose from: {', '.join(sorted(REGISTRY))}."
            )
        return [REGISTRY[name] for name in dict.fromkeys(names)]
    if uninstall:
        return list(REGISTRY.values())
    found = []
    for agent in REGISTRY.values():
        reason = agent.detect(workspace)
        if reason:
            found.append(agent)
            plan.notes.append(f"Found {agent.title}: {reason}.")
    if not found:
        raise UsageError(
            "No coding agent found (no config folder or CLI of any of "
            f"{', '.join(sorted(REGISTRY))}). Name one: 'wherein install claude'."
        )
    return found


def _project(scope: str, workspace: Path) -> Path | None:
    """The workspace when `scope` is the project's: its files came with a clone."""
    return workspace if scope == PROJECT else None


def _document(agent: Agent, path: Path, text: str):
    if agent.file_format == "toml":
        return parse_toml_document(text, str(path))
    return parse_json_document(text, str(path), agent.allows_comments)


def _install_change(
    agent: Agent, scope: str, path: Path, workspace: Path, command: list[str]
) -> FileChange:
    project = _project(scope, workspace)
    before = read_text(path, project)
    document = _document(agent, path, before or "")
    key = (*agent.servers_key, SERVER_NAME)
    entry = agent.entry(command, workspace)
    current = document.get(key)
    label = f"{agent.title} ({scope} scope)"
    if isinstance(current, dict) and all(current.get(k) == v for k, v in entry.items()):
        return FileChange(label, path, before, before, project=project)
    # Keys the user added to the entry ("env", "disabled") stay; ours are replaced. Not in a
    # project's file, which came with a clone: its entry's `env` (LD_PRELOAD) or `cwd` would
    # be reported as registered, and `doctor` would refuse to start it, naming install as
    # the fix.
    replace_all = (
        project is not None and isinstance(current, dict) and bool(set(current) - set(entry))
    )
    if agent.file_format == "toml":
        if replace_all:
            document = _document(agent, path, document.without_table(key))
        after = document.with_table(key, entry)
    else:
        keep = current if isinstance(current, dict) and not replace_all else {}
        after = document.with_member(key, {**keep, **entry})
    missing = [list(agent.servers_key[: i + 1]) for i in range(len(agent.servers_key))]
    created = Created(
        file=before is None,
        keys=[k for k in missing if document.get(tuple(k)) is None],
        dirs=missing_dirs(path),
    )
    return FileChange(label, path, before, after, created, project)


def _uninstall_change(
    agent: Agent, scope: str, path: Path, project: Path | None
) -> FileChange | None:
    before = read_text(path, project)
    if before is None:
        return None
    document = _document(agent, path, before)
    key = (*agent.servers_key, SERVER_NAME)
    if document.get(key) is None:
        return None
    created = created_in(path)
    label = f"{agent.title} ({scope} scope)"
    if agent.file_format == "toml":
        text = _restored_table(agent, path, before, key, project) or document.without_table(key)
        empty = not text.strip()
    else:
        text = document.without_member(key)
        for container in sorted(created.keys, key=len, reverse=True):
            pruned = parse_json_document(text, str(path), agent.allows_comments)
            if pruned.is_empty_object(tuple(container)):
                text = pruned.without_member(tuple(container))
        empty = parse_json_document(text, str(path), agent.allows_comments).is_empty_object(())
    # A file named after the server (Continue's one-file-per-server folder) is wholly ours.
    owned = created.file or path.name == f"{SERVER_NAME}.json"
    after = None if owned and empty else text
    return FileChange(label, path, before, after, created, project)
