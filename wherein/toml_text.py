"""TOML text read by the standard library's parser, and kept from tomlkit when it would stall.

wherein reads TOML it did not write: a clone's `.wherein.toml` and `.codex/config.toml`, the
user's own files, the price table. tomlkit, which keeps comments and layout for an edit, takes
time cubic in the dotted keys of one table (`a.b1 = 1`, `a.b2 = 1`, ...: 500 took 1.7 s, 4,000
in a 47 KB file over a minute), so a cloned file held every search, `status` and `doctor`. Reading
therefore goes through `tomllib` (`tomli` before Python 3.11: the same parser), which reads
such a file in milliseconds; tomlkit only parses a file wherein is asked to edit, and only one
with few dotted keys.
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["MAX_EDITED_DOTTED_KEYS", "TomlError", "dotted_keys", "loads", "too_slow_to_edit"]
# tomlkit parses 200 dotted keys in a table in about 0.2 s; a hand-written file has a few.
MAX_EDITED_DOTTED_KEYS = 200
# A key/value line whose key has a dot outside quotes: `a.b = 1`, `"x".y = 2` (over-counts a
# quoted key holding a dot, which only makes the bound stricter).
_DOTTED_KEY_LINE = re.compile(r"^[ \t]*[^\s=#\[][^=\n]*\.[^=\n]*=", re.MULTILINE)


class TomlError(ValueError):
    """The text is not valid TOML; the message names the line and column."""


def loads(text: str) -> dict[str, Any]:
    """The data of a TOML text (the parser is imported here: a search with no config file
    to read should not pay its import).

    Raises:
        TomlError: the text is not valid TOML.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise TomlError(str(err)) from None
    except RecursionError:  # `a = [[[...]]]` past Python's recursion limit: a clone's to write
        raise TomlError("arrays or tables nested too deep to read") from None


def dotted_keys(text: str) -> int:
    """About how many key/value lines of `text` have a dotted key."""
    return len(_DOTTED_KEY_LINE.findall(text))


def too_slow_to_edit(text: str, where: str) -> str | None:
    """Why tomlkit must not parse `text` (the file `where`), or None when it may."""
    count = dotted_keys(text)
    if count <= MAX_EDITED_DOTTED_KEYS:
        return None
    return (
        f"{where} has {count} dotted keys ('a.b = 1'), more than the "
        f"{MAX_EDITED_DOTTED_KEYS} wherein edits (its TOML editor slows sharply with each one); "
        "it was left untouched: edit it by hand, or write those keys under [a] tables"
    )
