"""`wherein completion bash|zsh|fish`: a tab-completion script, generated from the parser.

The script comes from the same argparse tree the command parses with, so a new subcommand
or option completes without anyone editing a script. `shtab` writes it: one pure-Python
module with no dependencies that walks argparse for bash, zsh and fish alike, quoting each
shell's way. Writing three generators by hand would be ~200 lines of our own that each need
zsh's `_arguments` escaping and fish's nested-subcommand conditions right; `argcomplete`
instead runs Python on every Tab press. Options that name folders or files complete as such.

    eval "$(wherein completion bash)"                      # ~/.bashrc
    wherein completion zsh > "${fpath[1]}/_wherein"        # then restart zsh
    wherein completion fish > ~/.config/fish/completions/wherein.fish
"""

from __future__ import annotations

import argparse

__all__ = ["SHELLS", "completion_script"]

SHELLS = ("bash", "zsh", "fish")
# Options (by `dest`) whose value is a folder, and those whose value is a file.
_FOLDERS = frozenset({"workspace", "path", "focus"})
_FILES = frozenset({"place", "ledger", "html"})


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script for `shell`, for the command `parser` parses."""
    import shtab  # only this command needs it

    for action in _actions(parser):
        if action.dest in _FOLDERS:
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif action.dest in _FILES:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    script = shtab.complete(parser, shell=shell)
    return script if script.endswith("\n") else script + "\n"


def _actions(parser: argparse.ArgumentParser):
    """Every action of `parser` and of its subcommands, depth first."""
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _actions(sub)
