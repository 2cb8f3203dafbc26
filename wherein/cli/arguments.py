"""The arguments every command shares: cleaned text, the workspace, its settings.

Arguments are cleaned once, as argparse hands them over (`clean_arguments`).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from wherein.cli.output import say
from wherein.errors import UsageError
from wherein.untrusted import as_text, echo

__all__ = ["clean_arguments", "cwd_workspace", "settings_for", "workspace_choice", "workspace_of"]

# Folders the index records by name, as text: a name that is not UTF-8 cannot be one.
_FOLDER_OPTIONS = frozenset({"workspace", "path", "focus"})
# Files and programs handed to the system as they are, whatever bytes their names hold.
_SYSTEM_PATH_OPTIONS = frozenset({"ledger", "html", "command_name"})


def clean_arguments(args: argparse.Namespace) -> None:
    """Undecodable argv bytes arrive as lone surrogates (PEP 383), which neither the tokenizer
    nor SQLite nor stdout accepts: in text they become U+FFFD; a folder must be UTF-8.

    Raises:
        UsageError: --workspace, --path or --focus names a folder that is not valid UTF-8.
    """
    for name, value in vars(args).items():
        if name in _SYSTEM_PATH_OPTIONS:
            continue
        if isinstance(value, str):
            setattr(args, name, clean_text(name, value))
        elif isinstance(value, list):
            setattr(args, name, [clean_text(name, v) if isinstance(v, str) else v for v in value])


# Undecodable argv bytes, as Python hands them over (PEP 383: U+DC80 to U+DCFF).
_SURROGATE_RUNS = re.compile("[\udc80-\udcff]+")


def clean_text(name: str, value: str) -> str:
    text = as_text(value)
    if name == "query" and text != value and not _SURROGATE_RUNS.sub("", value).strip():
        # Only bytes that are not UTF-8: after cleaning, a search for U+FFFD alone. (A query
        # holding a real U+FFFD is text, and searched as such.)
        raise UsageError(
            "The query holds no readable text: only bytes that are not UTF-8. Say what you are "
            "looking for in UTF-8 text."
        )
    if text != value and name in _FOLDER_OPTIONS:
        try:  # the bytes as typed, `\xff` for each one that is not UTF-8
            shown = os.fsencode(value).decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # not from argv: a surrogate no byte decodes to
            shown = value
        raise UsageError(
            f"--{name} {echo(shown)} is not valid UTF-8, and wherein keeps folder names as "
            "text: rename the folder, or name one whose path is UTF-8."
        )
    return text


def workspace_of(args: argparse.Namespace) -> Path:
    return workspace_choice(args).path


def workspace_choice(args: argparse.Namespace):
    from wherein.workspace_choice import choose_workspace

    return choose_workspace(getattr(args, "workspace", None))


def settings_for(workspace: Path | None):
    from wherein.config import load_settings

    settings = load_settings(workspace)
    for warning in settings.warnings:
        say(warning)
    return settings


def cwd_workspace() -> Path | None:
    """The workspace `config get` reads the `.wherein.toml` of, when one can be chosen."""
    from wherein.errors import WorkspaceError
    from wherein.workspace_choice import choose_workspace

    try:
        return choose_workspace(None).path
    except WorkspaceError:
        return None
