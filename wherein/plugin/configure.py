"""The `configure` action: read or write settings through the same layer as `wherein config`.

Values arrive as JSON and are written with `config_set`, which validates them again. The API
key is never returned (only whether one is set), and a blank one means "leave it as it is": an
agent that echoes back a form with an empty secret field must not clear the user's key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wherein.config import KEYS, config_get, config_set, user_config_path, workspace_config_path
from wherein.plugin.policy import check_agent_change
from wherein.plugin.scoping import folder_inside

__all__ = ["run_configure"]


def _as_text(key: str, value: Any) -> str:
    """The JSON value as the text `config_set` parses, like a command-line argument."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def _is_blank_secret(key: str, value: Any) -> bool:
    return KEYS[key].secret and (value is None or (isinstance(value, str) and not value.strip()))


def _setting(key: str, workspace: Path) -> dict[str, str]:
    shown, source = config_get(key, workspace)
    return {"key": key, "value": shown, "source": source}


def run_configure(workspace: Path, config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Apply `config["set"]` to the chosen file, or just read; returns (config block, lines).

    Each line is one sentence or one setting: a value a file holds may contain anything, so the
    caller escapes each line onto one (a value must not read as a setting of its own).

    Raises:
        ConfigError: a key the agent may not change, or a value the settings layer refuses.
    """
    changes: dict[str, Any] = dict(config.get("set") or {})
    which = config.get("file", "user")
    path = workspace_config_path(workspace) if which == "workspace" else user_config_path()
    for key, value in changes.items():
        check_agent_change(key, value)
    if "scope.focus" in changes and changes["scope.focus"]:
        folder_inside(workspace, changes["scope.focus"], "config.set.scope.focus")
    changed, unchanged = [], []
    for key, value in changes.items():
        if _is_blank_secret(key, value):
            unchanged.append(key)
            continue
        config_set(key, _as_text(key, value), path, workspace_file=which == "workspace")
        changed.append(key)
    block = {
        "file": which,
        "path": str(path),
        "changed": [_setting(key, workspace) for key in changed],
        "unchanged": unchanged,
        "settings": [] if changes else [_setting(key, workspace) for key in KEYS],
    }
    return block, _text(block)


def _text(block: dict[str, Any]) -> list[str]:
    if block["settings"]:
        rows = [f"{s['key']} = {s['value']} ({s['source']})" for s in block["settings"]]
        return ["Settings (value, then where it came from):", *rows]
    lines = [f"Wrote {block['path']}:"] if block["changed"] else []
    lines += [f"{s['key']} = {s['value']} (now from {s['source']})" for s in block["changed"]]
    if block["unchanged"]:
        lines.append(
            f"Left unchanged (a blank secret keeps the current one): "
            f"{', '.join(block['unchanged'])}."
        )
    return lines or ["Nothing to change."]
