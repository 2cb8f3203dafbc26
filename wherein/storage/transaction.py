"""SQLite write transactions and the meta table, shared by the code and history indexes."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator

__all__ = ["is_unwritable", "read_meta", "write_meta", "write_transaction"]


def is_unwritable(err: BaseException) -> bool:
    """Whether SQLite's error means the file or its directory cannot be written.

    An I/O error is one: SQLite says "disk I/O error" (SQLITE_IOERR) where a full disk or a
    file size limit refuses the `-shm` file it makes beside a healthy index, and taking
    that for damage moved the index aside. Damage is SQLITE_CORRUPT or SQLITE_NOTADB.
    """
    name = getattr(err, "sqlite_errorname", "")  # Python 3.11 and later
    if name.startswith(("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN")):
        return True
    text = str(err).lower()
    return any(
        s in text
        for s in ("readonly", "read-only", "unable to open", "disk is full", "disk i/o error")
    )


@contextlib.contextmanager
def write_transaction(
    conn: sqlite3.Connection, unwritable: Callable[[BaseException], Exception]
) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception.

    `unwritable` builds the error raised when the disk or the file refuses the write.
    The connection must be in autocommit mode (isolation_level=None).
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        if is_unwritable(err):
            raise unwritable(err) from err
        raise
    try:
        yield conn
    except BaseException as err:
        # On SQLITE_FULL and SQLITE_IOERR SQLite may already have rolled back
        # (sqlite.org/lang_transaction.html, "Response To Errors Within A Transaction");
        # a second ROLLBACK would fail and hide the real error.
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        if isinstance(err, sqlite3.OperationalError) and is_unwritable(err):
            raise unwritable(err) from err
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.OperationalError as err:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise unwritable(err) from err


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def write_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
