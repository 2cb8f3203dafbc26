"""`wherein install claude --statusline`: wherein's line in Claude Code's status bar, and back.

Claude Code reads `statusLine` from its settings files, as `{"type": "command", "command":
"..."}`, runs the command through the shell after each assistant message with the session's
JSON on stdin, and shows the first line it prints (code.claude.com/docs/en/statusline,
"Manually configure a status line"). User settings are `~/.claude/settings.json`
(`$CLAUDE_CONFIG_DIR/settings.json` when set); a project's `.claude/settings.json`, and its
`.claude/settings.local.json` above that, take precedence (code.claude.com/docs/en/settings).

Install sets the one key and leaves every other byte of the file as it was. A status line the
user already has is never replaced without `--force`; when it is, the replaced value is kept
in `<data home>/statusline-replaced.json`, and `wherein uninstall claude --statusline` (or a
plain uninstall) puts it back. Doctor runs the command as Claude Code would and reads its line.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

from wherein.errors import ConfigError, UsageError
from wherein.install.agents import claude_folder
from wherein.install.change import FileChange, missing_dirs
from wherein.install.command import SAFE_PATH_MAIN, server_command
from wherein.install.files import read_text
from wherein.install.jsonc import parse_json_document
from wherein.install.record import Created, created_in, load_record, save_record

__all__ = [
    "LABEL",
    "SETTING",
    "is_wherein_statusline",
    "plan_statusline",
    "plan_statusline_removal",
    "settings_file",
    "statusline_checks",
    "statusline_command",
]

SETTING = "statusLine"
PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")  # lowest first
RECORD_NAME = "statusline-replaced.json"
LABEL = "Claude Code status line"
PROBE_TIMEOUT_S = 20.0  # a status line answers in well under a second; a wedged one is cut
# What doctor sends: the fields wherein reads, for a session that has done nothing yet.
PROBE_INPUT = {"session_id": "wherein-doctor", "hook_event_name": "Status", "cwd": "/"}


def settings_file(scope: str, workspace: Path) -> Path:
    """Claude Code's settings file at `scope`: the user's, or the project's shared one."""
    if scope == "project":
        return workspace / PROJECT_FILES[0]
    return claude_folder() / "settings.json"


def statusline_command(command: list[str] | None = None) -> str:
    """The shell command Claude Code runs: `command` (default: this wherein, as `install`
    registers it), then `statusline`."""
    return shlex.join([*(command or server_command()), "statusline"])


def is_wherein_statusline(value: Any) -> bool:
    """Whether a `statusLine` value runs some wherein's `statusline` (this one or another)."""
    if not isinstance(value, dict) or not isinstance(value.get("command"), str):
        return False
    try:
        words = shlex.split(value["command"])
    except ValueError:
        return False
    if len(words) < 2 or words[-1] != "statusline":
        return False
    program = words[:-1]
    return Path(program[0]).name == "wherein" or program[-2:] in (
        ["-m", "wherein.cli"],
        ["-c", SAFE_PATH_MAIN],
    )


def plan_statusline(
    scope: str, workspace: Path, command: list[str] | None = None, force: bool = False
):
    """The change that sets wherein's status line at `scope` (none when it is already set).

    Raises:
        UsageError: another status line is set there and `force` is not given.
        ConfigError: the settings file does not parse or cannot be read.
    """

    path = settings_file(scope, workspace)
    project = workspace if scope == "project" else None
    before = read_text(path, project)
    document = parse_json_document(before or "", str(path), allow_comments=False)
    current = document.get((SETTING,))
    wanted = {"type": "command", "command": statusline_command(command)}
    label = f"{LABEL} ({scope} scope)"
    if isinstance(current, dict) and all(current.get(k) == v for k, v in wanted.items()):
        return FileChange(label, path, before, before, project=project)
    replaced = None
    if current is not None and not is_wherein_statusline(current):
        if not force:
            shown = current.get("command") if isinstance(current, dict) else current
            raise UsageError(
                f"Claude Code already shows a status line from {path} ({_short(shown)}), so "
                "wherein left it alone: pass --force to replace it ('wherein uninstall claude "
                "--statusline' puts it back)."
            )
        replaced = current
    elif isinstance(current, dict):
        wanted = {**current, **wanted}  # a wherein line of before: its padding etc. stay
    created = Created(file=before is None, dirs=missing_dirs(path))
    after = document.with_member((SETTING,), wanted)

    def remember_replaced() -> None:
        if replaced is not None:
            records = _load_record()
            records.setdefault(str(path), replaced)  # the user's own, never a later wherein's
            _save_record(records)

    return FileChange(label, path, before, after, created, project, after_write=remember_replaced)


def plan_statusline_removal(scope: str, workspace: Path):
    """The change that takes wherein's status line out of `scope`'s file, putting back the
    one it replaced; None when wherein's line is not set there.

    Raises:
        ConfigError: the settings file does not parse or cannot be read.
    """

    path = settings_file(scope, workspace)
    project = workspace if scope == "project" else None
    before = read_text(path, project)
    if before is None:
        return None
    document = parse_json_document(before, str(path), allow_comments=False)
    if not is_wherein_statusline(document.get((SETTING,))):
        return None
    previous = _load_record().get(str(path))
    created = created_in(path)
    if previous is not None:
        after: str | None = document.with_member((SETTING,), previous)
    else:
        after = document.without_member((SETTING,))
        emptied = parse_json_document(after, str(path), allow_comments=False)
        if created.file and emptied.is_empty_object(()):
            after = None  # the file held only wherein's line, and install created it

    def forget_replaced() -> None:
        records = _load_record()
        if records.pop(str(path), None) is not None:
            _save_record(records)

    label = f"{LABEL} ({scope} scope)"
    return FileChange(label, path, before, after, created, project, after_write=forget_replaced)


def statusline_checks(workspace: Path) -> list[tuple[str, str, str | None]]:
    """(status, detail, fix) for doctor: which status line Claude Code shows here, and, when
    it is wherein's, whether its command answers as the status bar needs.

    Nothing when no file sets a status line that is wherein's; a project's own file is never
    run unless it holds exactly this wherein's command (a clone may name any program).
    """
    found: list[tuple[str, Path, Any]] = []  # lowest precedence first
    checks: list[tuple[str, str, str | None]] = []
    files = [("user", settings_file("user", workspace), None)]
    files += [("project", workspace / name, workspace) for name in PROJECT_FILES]
    for scope, path, project in files:
        try:
            text = read_text(path, project)
            value = (
                None
                if text is None
                else parse_json_document(text, str(path), allow_comments=False).get((SETTING,))
            )
        except ConfigError as err:
            checks.append(("warn", str(err), "fix the file it names"))
            continue
        if value is not None:
            found.append((scope, path, value))
    ours = [item for item in found if is_wherein_statusline(item[2])]
    if not ours:
        return checks
    scope, path, value = found[-1]
    if not is_wherein_statusline(value):
        _, mine, _ = ours[-1]
        theirs = _short(value.get("command") if isinstance(value, dict) else value)
        checks.append(
            (
                "warn",
                f"{mine} sets wherein's status line, but {path} sets another, which Claude Code "
                f"shows instead ({theirs})",
                f"remove '{SETTING}' from {path} to show wherein's",
            )
        )
        return checks
    command = value["command"]
    where = f"{scope} scope, {path}"
    rerun = f"wherein install claude --statusline{' --project' if scope == 'project' else ''}"
    if scope == "project" and command != statusline_command():
        checks.append(
            (
                "warn",
                f"{where}: not run: it runs {_short(command)}, not this wherein's "
                f"'{statusline_command()}', and a project's file may come from anyone",
                f"check the file, then run '{rerun}' to rewrite it",
            )
        )
        return checks
    answered, detail = _probe(command, workspace)
    checks.append(("ok" if answered else "FAIL", f"{where}: {detail}", None if answered else rerun))
    return checks


def _probe(command: str, workspace: Path) -> tuple[bool, str]:
    """Run `command` as Claude Code does (a shell, the JSON on stdin) and read its line."""
    started = time.monotonic()
    try:
        result = subprocess.run(
            command,
            shell=True,  # Claude Code runs a status line through the shell too
            cwd=workspace,
            input=json.dumps(PROBE_INPUT).encode(),
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, f"'{command}' gave no line within {PROBE_TIMEOUT_S:.0f} s"
    except OSError as err:
        return False, f"'{command}' could not start: {err}"
    elapsed = (time.monotonic() - started) * 1000
    lines = result.stdout.decode("utf-8", "replace").splitlines()
    if result.returncode != 0 or not lines or not lines[0].startswith("Recall"):
        tail = result.stderr.decode("utf-8", "replace").strip()[-200:]
        said = f"; its stderr ends with: {tail}" if tail else ""
        return False, f"'{command}' exited with {result.returncode} and no recall line{said}"
    return True, f"'{command}' printed '{lines[0]}' in {elapsed:.0f} ms"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= 100 else text[:97] + "...")


def _load_record() -> dict[str, Any]:
    return load_record(RECORD_NAME)


def _save_record(records: dict[str, Any]) -> None:
    # Key order kept: the value goes back as it was written.
    save_record(RECORD_NAME, records, sort_keys=False)
