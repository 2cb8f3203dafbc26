"""The history index's numbered schema migrations, run by `wherein.storage.migrations`."""

from __future__ import annotations

import sqlite3

from wherein.ranking.tokens import tokenize
from wherein.storage.lexical import CREATE_LEXICAL_TABLE, joined_terms, write_terms
from wherein.storage.migrations import Migration, run_statements
from wherein.storage.vectors import make_vector_rows

__all__ = ["MIGRATIONS"]


def m001_create_tables(conn: sqlite3.Connection) -> None:
    """The tables, but for the keywords (a file written at schema 1 also has `terms` and
    `postings`: its keyword rows, which m002 replaces)."""
    run_statements(
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
        CREATE TABLE vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID
        """,
    )


def m002_lexical_engine(conn: sqlite3.Connection) -> None:
    """Keywords move from hand-written postings rows to the FTS5 engine the code index uses.

    The messages keep their text, so their terms are rebuilt here from it: no transcript is
    read again, and every vector stays. The mean idf that the old BM25's floor needed goes.
    A file created by this wherein never had the old tables.
    """
    run_statements(
        conn,
        """
        DROP TABLE IF EXISTS postings;
        DROP TABLE IF EXISTS terms;
        DELETE FROM meta WHERE key = 'mean_idf'
        """,
    )
    conn.execute(CREATE_LEXICAL_TABLE)
    messages = conn.execute("SELECT id, text FROM messages").fetchall()
    write_terms(conn, ((message_id, joined_terms(tokenize(text))) for message_id, text in messages))


def m003_vector_rows(conn: sqlite3.Connection) -> None:
    """The vectors become rowid rows, as the code index's did in its m006: a WITHOUT ROWID row
    of a 1.5 KB vector spills into an overflow page of its own (`storage.vectors`)."""
    make_vector_rows(conn, "vectors")


MIGRATIONS: list[Migration] = [m001_create_tables, m002_lexical_engine, m003_vector_rows]
