"""One corpus's SQLite file, opened, claimed, migrated and checked the same way for every corpus.

The code index and the history index differ in their tables and what they are called; how
their file is opened is one mechanism: an application id marks whose file it is, numbered
migrations bring it up to date under the write lock, a damaged or foreign file is moved
aside (never deleted) and a new one started, and every write runs in an explicit
transaction, so a process killed mid-write leaves the previous committed state (SQLite's
WAL journal guarantees the rest).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from wherein.errors import IndexBusy, IndexError_, IndexUnwritable
from wherein.storage.aside import SQLITE_SUFFIXES, database_not_regular, move_aside
from wherein.storage.lexical import check_lexical, delete_terms
from wherein.storage.migrations import Migration, apply_migrations
from wherein.storage.paths import refused_advice
from wherein.storage.transaction import is_unwritable, read_meta, write_meta, write_transaction

__all__ = [
    "BUSY_TIMEOUT_S",
    "SQL_VARIABLE_BATCH",
    "Database",
    "DatabaseKind",
    "delete_sources",
    "marked_batches",
    "open_database",
    "open_immutable",
    "open_read_only",
    "select_by_ids",
    "start_again",
    "wal_is_empty",
]

BUSY_TIMEOUT_S = 30.0
WAL_RETRY_S = 0.01
# Values bound per statement: well under SQLite's default limit of 32766 bound variables.
SQL_VARIABLE_BATCH = 500

T = TypeVar("T")
D = TypeVar("D", bound="Database")


def open_read_only(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A connection that cannot write `path`, through a URI that keeps any name intact.

    `file:{path}` would read a `#`, `?` or `%` in the path as URI syntax and open another
    file (a data home named `/tmp/a#b` opened `/tmp/a`); `as_uri` escapes them.
    """
    return sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=timeout)


@dataclass(frozen=True)
class DatabaseKind:
    """What tells one corpus's file from another's."""

    label: str  # what messages call it: "index", "history index"
    application_id: int  # PRAGMA application_id: marks the file as this kind's
    migrations: Sequence[Migration]
    kept: str  # what survives a rebuilt lexical index, as a notice says it


class Database:
    """One open SQLite file of a corpus; a subclass names its `KIND` and adds its tables."""

    KIND: ClassVar[DatabaseKind]

    def __init__(self, path: Path, verify: bool = False, read_only: bool = False) -> None:
        self.path = path
        self.verify = verify
        self.read_only = read_only
        # Why it was opened read-only (`open_database`): what a caller that must write raises.
        self.refused: IndexUnwritable | None = None
        self.notice: str | None = None
        if read_only:  # only where `wal_is_empty` (`open_immutable` says why)
            self.conn = open_immutable(path)
        else:
            self.conn = sqlite3.connect(
                str(path), isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
            )
        try:
            self._prepare()
        except BaseException:
            self.conn.close()
            raise

    def _prepare(self) -> None:
        conn, kind = self.conn, self.KIND
        app_id, version, tables = self._header()
        if self.read_only:
            if app_id != kind.application_id or version != len(kind.migrations):
                raise sqlite3.DatabaseError(f"not a wherein {kind.label} of this version")
            return
        if app_id not in (0, kind.application_id) or (app_id == 0 and (version or tables)):
            raise sqlite3.DatabaseError(f"not a wherein {kind.label}")
        if version > len(kind.migrations):
            raise IndexError_(
                f"The {kind.label} at {self.path} was written by a newer wherein (schema "
                f"{version}; this one knows {len(kind.migrations)}). Upgrade wherein, or delete "
                f"that file to rebuild the {kind.label}."
            )
        self._use_wal()
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if app_id == 0 or version < len(kind.migrations):
            self._initialize()
        if not self.verify:
            return
        # quick_check reports damage as a row rather than raising: read the verdict.
        (verdict,) = conn.execute("PRAGMA quick_check(1)").fetchone()
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {' '.join(verdict.split())}")
        if check_lexical(conn):
            self.notice = (
                f"The lexical index in {self.path} was damaged; rebuilt it from the terms "
                f"it stores ({kind.kept} kept)."
            )

    def _use_wal(self) -> None:
        """Switch a new file to WAL, retrying while another opener holds it.

        The switch needs an exclusive lock and SQLite answers SQLITE_BUSY at once
        instead of calling the busy handler, so two processes creating the file
        together would otherwise see "database is locked". Once set, the mode is
        stored in the file and later opens do not lock.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            except sqlite3.OperationalError as err:
                if not is_busy(err) or time.monotonic() > deadline:
                    raise
                time.sleep(WAL_RETRY_S)

    def _header(self) -> tuple[int, int, int]:
        """(application_id, user_version, table count), read as one snapshot."""
        return self.conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id()), "
            "(SELECT user_version FROM pragma_user_version()), "
            "(SELECT count(*) FROM sqlite_master)"
        ).fetchone()

    def _initialize(self) -> None:
        """Claim a new file and migrate it under the write lock.

        Two processes opening a fresh file at once (a search beside `wherein index`)
        would otherwise both create the tables, and the loser would take the winner's
        file for a broken one and move it aside.
        """
        conn, kind = self.conn, self.KIND
        conn.execute("BEGIN IMMEDIATE")
        try:
            app_id, version, tables = self._header()
            if app_id == 0:
                if version or tables:
                    raise sqlite3.DatabaseError(f"not a wherein {kind.label}")
                # PRAGMA takes no bound parameters; the id is this class's own constant.
                conn.execute(f"PRAGMA application_id = {int(kind.application_id)}")
            apply_migrations(conn, kind.migrations, kind.label)
            if app_id == 0:
                self._created(conn)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _created(self, conn: sqlite3.Connection) -> None:
        """Mark a file this process just made, inside the transaction that migrated it."""

    def close(self) -> None:
        self.conn.close()

    def say(self, message: str) -> None:
        """Add a sentence to `notice`, for the caller to show once."""
        self.notice = message if self.notice is None else f"{self.notice} {message}"

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        label = self.KIND.label
        return write_transaction(self.conn, lambda err: _unwritable(label, self.path, err))

    def get_meta(self, key: str) -> str | None:
        return read_meta(self.conn, key)

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        write_meta(conn, key, value)


def open_database(cls: type[D], path: Path, damaged: Callable[[str], D], verify: bool = False) -> D:
    """Open the file of `cls` at `path`, handing what is broken to `damaged(why)`.

    Broken is a file that is not of this kind, or is corrupt, or anything but a regular file
    at the name of the database or its `-wal` or `-shm` (a folder, a FIFO, a link, which
    SQLite would follow or open as one). `damaged` starts again (`start_again`) or raises.

    Raises:
        IndexUnwritable: the directory or the file cannot be written.
        IndexBusy: another process held the file locked for BUSY_TIMEOUT_S.
    """
    label = cls.KIND.label
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise IndexUnwritable(
            f"Cannot create the {label} directory {path.parent}: {err.strerror or err}. "
            f"{refused_advice(path.parent, err)}."
        ) from err
    try:
        irregular = database_not_regular(path)
    except OSError as err:  # the folder may not be searched: nothing in it can be opened
        raise _unwritable(label, path, err) from err
    if irregular is not None:
        return damaged(irregular)
    try:
        return cls(path, verify)
    except sqlite3.DatabaseError as err:
        if is_unwritable(err):
            refused = _unwritable(label, path, err)
            read_only = _open_read_only(cls, path)
            if read_only is None:
                raise refused from err
            read_only.refused = refused
            read_only.notice = f"{refused} Read it as it was, without changes since."
            return read_only
        if is_busy(err):  # locked is not broken: never move a live file aside
            raise IndexBusy(
                f"The {label} at {path} stayed locked by another process for "
                f"{BUSY_TIMEOUT_S:g} s. Try again when it has finished."
            ) from err
        return damaged(str(err))


def open_immutable(path: Path) -> sqlite3.Connection:
    """A read-only connection that needs nothing written: SQLite's `immutable`, which
    makes no `-shm` file and takes no lock. Where the disk is full (or a file size limit
    or a read-only folder refuses the `-shm`), an index can still be read so. It reads
    the main file alone: only for a file whose WAL is empty (`wal_is_empty`), or it
    would miss transactions, or catch a checkpoint half done."""
    where = f"{Path(path).absolute().as_uri()}?mode=ro&immutable=1"
    return sqlite3.connect(where, uri=True, isolation_level=None, check_same_thread=False)


def wal_is_empty(path: Path) -> bool:
    """Whether the database at `path` has no WAL file, or an empty regular one."""
    try:
        wal = os.stat(f"{path}-wal", follow_symlinks=False)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISREG(wal.st_mode) and wal.st_size == 0


def _open_read_only(cls: type[D], path: Path) -> D | None:
    """The file at `path` opened read-only where it can be (`open_immutable`), so that a
    search on a full disk still answers from what the index holds; else None."""
    if not wal_is_empty(path):
        return None
    try:
        return cls(path, read_only=True)
    except sqlite3.Error:
        return None


def start_again(cls: type[D], path: Path, why: str, moved: str) -> D:
    """Move the unusable file aside with its companions and open a new one in its place.

    `moved` ends the notice after "moved it to <aside>"; the new store's `notice` says it all.
    """
    try:
        aside = move_aside(path, SQLITE_SUFFIXES)
    except OSError as err:
        raise _unwritable(cls.KIND.label, path, err) from err
    store = cls(path)
    store.notice = (
        f"The {cls.KIND.label} at {path} was unreadable ({why}); moved it to {aside}{moved}."
    )
    return store


def is_busy(err: sqlite3.Error) -> bool:
    return "database is locked" in str(err).lower()


def _unwritable(label: str, path: Path, err: BaseException) -> IndexUnwritable:
    """The error a refused write raises (a full disk, a read-only file or folder), with the
    advice its cause wants."""
    why = err.strerror if isinstance(err, OSError) and err.strerror else err
    return IndexUnwritable(
        f"Cannot write the {label} at {path}: {why}. {refused_advice(path.parent, err)}."
    )


def marked_batches(
    items: Sequence[T], size: int = SQL_VARIABLE_BATCH
) -> Iterator[tuple[list[T], str]]:
    """`items` in lists of at most `size`, each with its `?,?,...` marks for an `IN (...)`."""
    for start in range(0, len(items), size):
        batch = list(items[start : start + size])
        yield batch, ",".join("?" * len(batch))


def delete_sources(
    conn: sqlite3.Connection, sources: str, rows: str, source_key: str, ids: Sequence[int]
) -> None:
    """Delete the `sources` rows (files, conversations) with these ids, the `rows` of each
    (chunks, messages: `rows.<source_key>` names its source), and those rows' terms."""
    for batch, marks in marked_batches(ids):
        delete_terms(conn, f"SELECT id FROM {rows} WHERE {source_key} IN ({marks})", batch)
        conn.execute(f"DELETE FROM {rows} WHERE {source_key} IN ({marks})", batch)
        conn.execute(f"DELETE FROM {sources} WHERE id IN ({marks})", batch)


def select_by_ids(conn: sqlite3.Connection, select: str, ids: Sequence[int]) -> Iterator[tuple]:
    """The rows of `select`, which ends in `... IN`, for `ids`, read a batch at a time."""
    for batch, marks in marked_batches(ids):
        yield from conn.execute(f"{select} ({marks})", batch)
