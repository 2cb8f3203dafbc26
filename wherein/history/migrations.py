"""Numbered schema migrations of the history index; `PRAGMA user_version` counts those applied.

Each is a function `mNNN_<what>(conn)`, run once in order inside the caller's write
transaction, as `wherein.index.migrations` does for the code index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from wherein.errors import IndexError_

__all__ = ["MIGRATIONS", "apply_migrations"]


def _run_statements(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT first; statement by statement keeps a migration atomic.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_create_tables(conn: sqlite3.Connection) -> None:
    _run_statements(
        conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,      -- the transcript file, absolute (read, never written)
            source TEXT NOT NULL,           -- 'claude' | 'codex'
            session TEXT NOT NULL,          -- the agent's own id for the conversation
            project TEXT NOT NULL,          -- the working directory, '' when unknown
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL            -- the fingerprint: unchanged means nothing to do
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,      -- 1-based among the conversation's messages
            author TEXT NOT NULL,           -- 'user' | 'assistant'
            time REAL,                      -- epoch seconds, UTC, NULL when not recorded
            text TEXT NOT NULL,             -- verbatim
            text_hash TEXT NOT NULL,        -- sha256 of text: what the vector is keyed by
            n_tokens INTEGER NOT NULL,
            UNIQUE (conversation_id, position)
        );
        CREATE INDEX messages_by_hash ON messages(text_hash);
        CREATE TABLE vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
        CREATE TABLE postings (
            term_id INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            tf INTEGER NOT NULL,
            PRIMARY KEY (term_id, message_id)
        ) WITHOUT ROWID;
        CREATE INDEX postings_by_message ON postings(message_id);
        """,
    )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [m001_create_tables]


def apply_migrations(conn: sqlite3.Connection) -> None:
    """Bring the schema up to date inside the caller's write transaction.

    Raises:
        IndexError_: the file has a newer schema than this wherein knows.
    """
    (applied,) = conn.execute("PRAGMA user_version").fetchone()
    if applied > len(MIGRATIONS):
        raise IndexError_(
            f"The history index was written by a newer wherein (schema {applied}; this one "
            f"knows {len(MIGRATIONS)}). Upgrade wherein, or delete the history index to rebuild it."
        )
    for number, migration in enumerate(MIGRATIONS[applied:], start=applied + 1):
        migration(conn)
        # PRAGMA takes no bound parameters; `number` is an int from enumerate.
        conn.execute(f"PRAGMA user_version = {int(number)}")
