"""What reading each ledger file gave, kept so that the next `baseline` reads only what changed.

One SQLite file, `<data home>/meter-cache.sqlite`, holds a `ParsedFile` record per (file,
reading rule), keyed by the size, mtime and inode the file had when it was read: a reader
reads a file only up to the size it had when opened (`jsonl.py`), so a record describes
exactly the file with that key. A transcript an agent appended to since has another size and
is read again; one that did not change is never opened. Pricing, filters and the merge across
files run after the cache, so a changed price file or `--since` needs no new read.

The cache is an optimisation and never a reason to fail: a cache that cannot be opened,
read or written is left alone and every file is read, and the report says why.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Mapping
from pathlib import Path

from wherein import __version__
from wherein.index.location import data_home
from wherein.meter.jsonl import LEDGER_FILE_MAX_BYTES
from wherein.meter.parsed import MAGIC, ParsedFile
from wherein.safe_files import not_regular

__all__ = ["CACHE_FILE_NAME", "ParseCache", "cache_path", "file_signature"]

CACHE_FILE_NAME = "meter-cache.sqlite"
# A record's meaning depends on the readers' rules: a new wherein starts from an empty cache.
FORMAT = f"{__version__} {MAGIC.decode().strip()}"
BUSY_TIMEOUT_S = 10.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS parsed (path BLOB NOT NULL, rule TEXT NOT NULL, size INTEGER,"
    " mtime_ns INTEGER, inode INTEGER, data BLOB NOT NULL, PRIMARY KEY (path, rule))",
)

Signature = tuple[int, int, int]


def cache_path(environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/meter-cache.sqlite`."""
    return data_home(environ) / CACHE_FILE_NAME


def file_signature(path: Path, follow_links: bool) -> Signature | None:
    """(size, mtime_ns, inode) of the regular file at `path`; None when a reader would refuse
    it or there is nothing there (so the reader runs, and says why)."""
    try:
        info = os.stat(path) if follow_links else os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > LEDGER_FILE_MAX_BYTES:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _key(path: Path) -> bytes:
    """A record's path: absolute (a `--ledger` named relative to one folder is not the file
    of that name in another), as bytes (any name a file system allows)."""
    return os.fsencode(os.path.abspath(path))


class ParseCache:
    """The records of one cache file; `load` before any lookup, `close` to write and prune."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem: str | None = None  # why the cache was not used, if it was not
        self._known: dict[tuple[bytes, str], Signature] = {}
        self._pending: list[tuple[bytes, str, Signature, bytes]] = []
        self._data: dict[tuple[bytes, str], bytes] | None = None
        self._keys: dict[Path, bytes] = {}
        self._conn: sqlite3.Connection | None = None

    def _key(self, path: Path) -> bytes:
        """`_key`, remembered for this run: it is asked three times per file."""
        key = self._keys.get(path)
        if key is None:
            key = self._keys[path] = _key(path)
        return key

    def load(self) -> None:
        """Read every record's key (not its data), then let go of the file.

        Kept apart from reading data so that no connection is open while reader processes
        are forked.
        """
        conn = self._open()
        if conn is None:
            return
        try:
            rows = conn.execute("SELECT path, rule, size, mtime_ns, inode FROM parsed").fetchall()
            self._known = {(bytes(p), rule): (s, m, i) for p, rule, s, m, i in rows}
        except sqlite3.Error as err:
            self._fail(err)
        self._disconnect()

    def has(self, path: Path, rule: str, signature: Signature | None) -> bool:
        """Whether a record for `path` read under `rule` matches `signature`."""
        if signature is None or self.problem is not None:
            return False
        return self._known.get((self._key(path), rule)) == signature

    def get(self, path: Path, rule: str) -> ParsedFile | None:
        """The record `has` found, or None when it cannot be read back.

        The first call reads every record in one query (one query per file took longer than
        decoding them); each is handed out once.
        """
        if self._data is None:
            conn = self._open()
            if conn is None:
                return None
            try:
                rows = conn.execute("SELECT path, rule, data FROM parsed").fetchall()
            except sqlite3.Error as err:
                self._fail(err)
                return None
            self._data = {(bytes(p), r): bytes(data) for p, r, data in rows}
        data = self._data.pop((self._key(path), rule), None)
        if data is None:
            return None
        try:
            return ParsedFile.from_bytes(data)
        except (ValueError, KeyError, TypeError):
            return None  # a damaged record: the file is read again and the record replaced

    def put(self, path: Path, rule: str, parsed: ParsedFile, data: bytes | None = None) -> None:
        """Keep `parsed` (serialized as `data`, if already) for the next run; a file that
        could not be read whole is not kept."""
        if self.problem is not None or parsed.signature is None or parsed.stats.unreadable:
            return
        blob = parsed.to_bytes() if data is None else data
        self._pending.append((self._key(path), rule, parsed.signature, blob))

    def close(self) -> None:
        """Write what `put` kept, forget the records of files that are gone, and close."""
        if self.problem is None and (self._pending or self._known):
            conn = self._open()
            if conn is not None:
                try:
                    with conn:
                        conn.executemany(
                            "INSERT OR REPLACE INTO parsed VALUES (?, ?, ?, ?, ?, ?)",
                            [(p, r, *sig, blob) for p, r, sig, blob in self._pending],
                        )
                        gone = {p for p, _ in self._known if not os.path.lexists(os.fsdecode(p))}
                        conn.executemany("DELETE FROM parsed WHERE path = ?", [(p,) for p in gone])
                except sqlite3.Error as err:
                    self._fail(err)
        self._pending = []
        self._data = None
        self._disconnect()

    def _open(self) -> sqlite3.Connection | None:
        if self.problem is not None:
            return None
        if self._conn is not None:
            return self._conn
        kind = not_regular(self.path)  # SQLite would follow a link or open a FIFO
        if kind is not None:
            self.problem = f"{self.path} is {kind}, not a regular file"
            return None
        conn = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S)
            with conn:
                for statement in _SCHEMA:
                    conn.execute(statement)
                row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
                if row is None or row[0] != FORMAT:
                    conn.execute("DELETE FROM parsed")
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
        except (sqlite3.Error, OSError) as err:
            if conn is not None:  # a damaged file: not this object's yet, so closed here
                conn.close()
            self._fail(err)
            return None
        self._conn = conn
        return conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def _fail(self, err: Exception) -> None:
        self.problem = f"{self.path} cannot be used ({err})"
        self._known = {}
        self._disconnect()
