"""What `wherein install` created, so `wherein uninstall` can put each file back byte for byte.

Adding `"wherein"` to a file that had no `mcpServers` also adds the `mcpServers` object, and
installing into a missing file creates the file (and perhaps its folder). The file alone cannot
tell whether an empty `"mcpServers": {}` was the user's or ours, so install notes what it
created in `$WHEREIN_HOME/agent-installs.json` and uninstall removes only that, once empty.
Without a note (the record was deleted, or the entry was added by hand) uninstall removes the
entry alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wherein.errors import ConfigError
from wherein.index.location import data_home
from wherein.safe_files import UnsafeFile, not_regular, read_regular, write_atomic
from wherein.storage.aside import move_aside

__all__ = ["Created", "created_in", "forget", "load_record", "remember", "save_record"]

RECORD_NAME = "agent-installs.json"
# Far above what installs into every agent's files write (a few hundred bytes each).
RECORD_MAX_BYTES = 1 << 20


@dataclass
class Created:
    """What one install made in one file: the file itself, objects inside it, its folders."""

    file: bool = False
    keys: list[list[str]] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)

    def merged(self, other: Created) -> Created:
        keys = self.keys + [k for k in other.keys if k not in self.keys]
        dirs = self.dirs + [d for d in other.dirs if d not in self.dirs]
        return Created(self.file or other.file, keys, dirs)


def load_record(name: str) -> dict[str, Any]:
    """The JSON object in the data home's record file `name`; {} when missing or damaged.

    Only undoing depends on a record, so a damaged one means "undo only what can be seen".
    It is read as the data home's other files are: not through a link, a regular file only
    (a FIFO is never waited on), bounded.
    """
    try:
        data = read_regular(data_home() / name, max_bytes=RECORD_MAX_BYTES)
    except UnsafeFile:
        return {}
    if not data:
        return {}
    try:
        loaded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def save_record(name: str, records: dict[str, Any], *, sort_keys: bool = True) -> None:
    """Write the record file `name` whole, never through a link: a link, FIFO or folder at its
    name is moved aside (kept as `<name>.broken-<time>`) and the record written in its place.

    Raises:
        ConfigError: the data home cannot be written.
    """
    path = data_home() / name
    data = (json.dumps(records, indent=2, sort_keys=sort_keys) + "\n").encode("utf-8")
    try:
        if not_regular(path) is not None:
            move_aside(path)
        write_atomic(path, data)
    except (OSError, UnsafeFile) as err:
        raise ConfigError(
            f"Cannot write {path}: {err}. Run the command again once it can be written."
        ) from err


def _load() -> dict[str, dict]:
    return load_record(RECORD_NAME)


def _save(records: dict[str, dict]) -> None:
    save_record(RECORD_NAME, records)


def created_in(path: Path) -> Created:
    """What install created in `path` (nothing, if there is no note)."""
    entry = _load().get(str(path))
    if not isinstance(entry, dict):
        return Created()
    return Created(
        bool(entry.get("file")),
        [list(k) for k in entry.get("keys", []) if isinstance(k, list)],
        [str(d) for d in entry.get("dirs", [])],
    )


def remember(path: Path, created: Created) -> None:
    """Add `created` to the note for `path`."""
    if not (created.file or created.keys or created.dirs):
        return
    records = _load()
    merged = created_in(path).merged(created)
    records[str(path)] = {"file": merged.file, "keys": merged.keys, "dirs": merged.dirs}
    _save(records)


def forget(path: Path) -> None:
    """Drop the note for `path` (after uninstall)."""
    records = _load()
    if records.pop(str(path), None) is not None:
        _save(records)
