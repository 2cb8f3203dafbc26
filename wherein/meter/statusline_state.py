"""What `wherein statusline` keeps between refreshes: one small JSON file per session.

Offsets read to and sums so far, in `<data home>/statusline/`: each refresh reads only what
the ledger and the transcript gained since the last. A state lost or damaged costs one
slower refresh, never a wrong line; a session's state unused for a month is removed.
"""

from __future__ import annotations

import json
import os
import re
import time
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wherein.index.location import data_home
from wherein.safe_files import UnsafeFile, open_regular, write_atomic

if TYPE_CHECKING:
    from wherein.meter.prices import PriceBook

__all__ = ["SessionState", "load_state", "save_state", "state_path"]

STATE_DIR = "statusline"
STATE_MAX_BYTES = 16 << 20
STATE_KEEP_S = 30 * 86_400  # a session's state unused for a month is removed
STATE_VERSION = 2
RECENT_RESPONSES = 512  # responses whose streamed copies may still arrive


class SessionState:
    """What the last refresh read of the session, so this one reads only what came after.

    Streamed copies of a response are merged as `baseline` merges them (the fullest kept), in
    a map of the last RECENT_RESPONSES responses; older ones are settled into totals, since a
    copy never arrives hundreds of responses after its first line. A plain class: the rest of
    this module avoids what it need not import (dataclasses alone takes longer to import
    than the status line takes to answer).
    """

    def __init__(self, session: str) -> None:
        self.session = session
        self.files: dict[str, list[int]] = {}  # transcript path -> [inode, offset read to]
        self.recent: dict[str, list] = {}  # response key -> [tokens, USD or None]
        self.settled_usd = 0.0
        self.settled_unpriced = 0
        self.tool_ids: list[str] = []  # the last recall tool_use ids seen
        self.recall_calls = 0  # recall tool_use blocks in the transcripts
        self.unnamed = 0  # response lines without a message id, each its own request
        self.usage = [0, 0, 0, 0, 0]  # usage.jsonl: inode, offset read to, searches, chars
        self.usage_read = False
        self.behind = False  # a transcript still has bytes this refresh did not read
        self.prices: PriceBook | None = None  # loaded when a response needs pricing

    @property
    def usd(self) -> float:
        return self.settled_usd + sum(c for _, c in self.recent.values() if c is not None)

    @property
    def unpriced(self) -> int:
        return self.settled_unpriced + sum(1 for _, c in self.recent.values() if c is None)

    def restart_transcripts(self) -> None:
        """Forget what was read of the transcripts (one was replaced or cut)."""
        self.files.clear()
        self.recent.clear()
        self.settled_usd, self.settled_unpriced = 0.0, 0
        self.tool_ids.clear()
        self.recall_calls = self.unnamed = 0
        self.behind = True

    def keep(self, key: str, tokens: int, usd: float | None) -> None:
        self.recent[key] = [tokens, usd]
        while len(self.recent) > RECENT_RESPONSES:
            _, (_, settled) = _pop_oldest(self.recent)
            if settled is None:
                self.settled_unpriced += 1
            else:
                self.settled_usd += settled

    def to_json(self) -> dict:
        return {
            "version": STATE_VERSION,
            "session": self.session,
            "files": self.files,
            "recent": self.recent,
            "settled": [self.settled_usd, self.settled_unpriced],
            "tool_ids": self.tool_ids[-RECENT_RESPONSES:],
            "recall_calls": self.recall_calls,
            "unnamed": self.unnamed,
            "usage": self.usage,
        }

    @classmethod
    def from_json(cls, value: Any, session: str) -> SessionState:
        """The state saved for `session`, or a fresh one (damaged, or another session's)."""
        state = cls(session)
        if not isinstance(value, dict) or value.get("version") != STATE_VERSION:
            return state
        if value.get("session") != session:
            return state
        try:
            state.files = {str(k): [int(v[0]), int(v[1])] for k, v in value["files"].items()}
            state.recent = {
                str(k): [int(v[0]), None if v[1] is None else float(v[1])]
                for k, v in value["recent"].items()
            }
            state.settled_usd = float(value["settled"][0])
            state.settled_unpriced = int(value["settled"][1])
            state.tool_ids = [str(t) for t in value["tool_ids"]]
            state.recall_calls = int(value["recall_calls"])
            state.unnamed = int(value["unnamed"])
            state.usage = [int(v) for v in value["usage"]][:5]
        except (ValueError, TypeError, KeyError, AttributeError, IndexError):
            return cls(session)  # damaged: read again from the start
        if len(state.usage) != 5:
            state.usage = [0, 0, 0, 0, 0]
        return state


def _pop_oldest(mapping: dict) -> tuple:
    key = next(iter(mapping))
    return key, mapping.pop(key)


def state_path(session: str, environ: Mapping[str, str] | None) -> Path:
    """`<data home>/statusline/<session>.json`: the id's safe characters (a uuid keeps them
    all) and a checksum; the file names its session, so a collision only costs a re-read."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session)[:64]
    check = zlib.crc32(session.encode("utf-8", "surrogatepass"))
    return data_home(environ) / STATE_DIR / f"{safe}-{check:08x}.json"


def load_state(path: Path, session: str) -> SessionState:
    """Last refresh's state for `session`, or a fresh one (none yet, damaged, or another's)."""
    try:
        handle = open_regular(path, max_bytes=STATE_MAX_BYTES)
    except UnsafeFile:
        return SessionState(session)
    if handle is None:
        return SessionState(session)
    with handle:
        data = handle.read()
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return SessionState(session)
    return SessionState.from_json(value, session)


def save_state(path: Path, state: SessionState) -> None:
    data = json.dumps(state.to_json(), separators=(",", ":"), allow_nan=False)
    fresh = not path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Not flushed to disk: a state lost in a crash costs one slower refresh, and the
        # status bar should not wait on the disk after every message.
        write_atomic(path, data.encode("utf-8", "surrogatepass"), durable=False)
    except (OSError, UnsafeFile):
        return  # the next refresh reads the transcript again: slower, never wrong
    if fresh:
        _prune_states(path.parent)


def _prune_states(folder: Path) -> None:
    """Remove the state of sessions not refreshed for STATE_KEEP_S (run once per session)."""
    cutoff = time.time() - STATE_KEEP_S
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            continue
