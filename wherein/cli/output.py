"""What every command writes: one escaped line or JSON object at a time.

Whatever is printed may quote a repository (a file or folder name, a setting, a walk note),
so each message and each line goes out through `untrusted.one_line`, each report through
`untrusted.visible`, and JSON through `untrusted.json_text`: no value can start a line or
send a terminal a control sequence.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from wherein.untrusted import json_text, one_line

__all__ = ["can_encode", "drop_stdout", "dump", "say", "show"]


def say(message: str) -> None:
    """One message to stderr, on one line whatever the repository put in it."""
    print(f"wherein: {one_line(message)}", file=sys.stderr)


def show(line: str) -> None:
    """One line to stdout, escaped like `_say`."""
    print(one_line(line))


def dump(value: Any) -> None:
    """One JSON object to stdout: exact, and nothing a terminal would act on."""
    sys.stdout.write(json_text(value) + "\n")


def can_encode(stream, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def drop_stdout() -> None:
    """Point stdout at /dev/null, as Python's documentation does for a closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real descriptor (a test's capture)
        pass
