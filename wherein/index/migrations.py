"""Numbered schema migrations; the index records the highest one applied.

Each is a function `mNNN_<what>(conn)`, run once in order inside the caller's
write transaction, as llm's `embeddings_migrations.py` does.
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
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,      -- display path: 'rel' or 'label/rel'
            root TEXT NOT NULL,             -- absolute root directory
            fs_path BLOB NOT NULL,          -- os.fsencode of the real path
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            language TEXT NOT NULL,
            skipped TEXT                    -- why it has no chunks: binary, generated, ...
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            symbols TEXT NOT NULL,          -- JSON list
            kind TEXT NOT NULL,
            header TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,        -- sha256 of what is embedded
            n_tokens INTEGER NOT NULL
        );
        CREATE INDEX chunks_by_file ON chunks(file_id);
        CREATE INDEX chunks_by_hash ON chunks(text_hash);
        CREATE TABLE vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
        CREATE TABLE postings (
            term_id INTEGER NOT NULL,
            chunk_id INTEGER NOT NULL,
            tf INTEGER NOT NULL,
            PRIMARY KEY (term_id, chunk_id)
        ) WITHOUT ROWID;
        CREATE INDEX postings_by_chunk ON postings(chunk_id);
        """,
    )


def m002_pending_flag(conn: sqlite3.Connection) -> None:
    """A flag per chunk for "has a vector", so finding pending work is an index lookup.

    Without it every search scanned all chunks against the vectors table to learn
    that nothing was pending (80 ms on pydantic's 6k chunks).
    """
    _run_statements(
        conn,
        """
        ALTER TABLE chunks ADD COLUMN has_vector INTEGER NOT NULL DEFAULT 0;
        UPDATE chunks SET has_vector = EXISTS (
            SELECT 1 FROM vectors v WHERE v.text_hash = chunks.text_hash);
        CREATE INDEX chunks_pending ON chunks(id) WHERE has_vector = 0
        """,
    )


def m003_chunk_lengths_index(conn: sqlite3.Connection) -> None:
    """A covering index of (id, n_tokens): BM25 reads every chunk's length on each search,
    and without it SQLite walks the table rows, texts and all (8% of a stdlib search)."""
    conn.execute("CREATE INDEX chunks_lengths ON chunks(id, n_tokens)")


def m004_lexical_engine(conn: sqlite3.Connection) -> None:
    """BM25 moves from hand-written postings rows to SQLite's FTS5 (`wherein.index.lexical`).

    Inserting one row per (term, chunk) was 45% of indexing the standard library; FTS5
    writes the same terms in C. The old postings cannot be turned back into text, so every
    file is marked changed: the next refresh re-chunks it, and each chunk keeps its vector
    because vectors are keyed by the hash of the embedded text, which does not change.
    """
    from wherein.index.lexical import CREATE_LEXICAL_TABLE

    _run_statements(
        conn,
        """
        DROP TABLE postings;
        DROP TABLE terms;
        UPDATE files SET sha256 = '', mtime_ns = -1
        """,
    )
    conn.execute(CREATE_LEXICAL_TABLE)


def m005_fast_tier(conn: sqlite3.Connection) -> None:
    """A second vector table for the fast static tier, with its own "has a vector" flag.

    The fast tier answers a first search in seconds; the configured model's vectors (the
    `vectors` table) fill in behind it. Two tables keep the two vector spaces apart.
    """
    _run_statements(
        conn,
        """
        CREATE TABLE fast_vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL)
            WITHOUT ROWID;
        ALTER TABLE chunks ADD COLUMN has_fast INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX chunks_fast_pending ON chunks(id) WHERE has_fast = 0
        """,
    )


def m006_vector_rows(conn: sqlite3.Connection) -> None:
    """Both vector tables become rowid tables with a unique index on `text_hash`.

    In a WITHOUT ROWID table a row must fit in about 1,000 bytes of a 4 KiB page or it
    spills into an overflow page of its own, and every vector is larger (1,024 bytes for
    the fast tier's 256 float32, 1,536 for MiniLM's 384): the standard library's fast
    vectors took 223 MB and their inserts a fifth of its first index. As rowid rows three
    or four share a page: 69 MB, and inserting 47,500 of them took about half the time.
    """
    for table in ("vectors", "fast_vectors"):
        _run_statements(
            conn,
            f"""
            CREATE TABLE {table}_rows (
                id INTEGER PRIMARY KEY,
                text_hash TEXT NOT NULL UNIQUE,
                vector BLOB NOT NULL
            );
            INSERT INTO {table}_rows(text_hash, vector) SELECT text_hash, vector FROM {table};
            DROP TABLE {table};
            ALTER TABLE {table}_rows RENAME TO {table}
            """,
        )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_create_tables,
    m002_pending_flag,
    m003_chunk_lengths_index,
    m004_lexical_engine,
    m005_fast_tier,
    m006_vector_rows,
]


def apply_migrations(conn: sqlite3.Connection) -> None:
    """Bring the schema up to date; `PRAGMA user_version` holds the count applied.

    The caller holds a write transaction (BEGIN IMMEDIATE), so the version read here
    cannot change before the migrations run, and all of them commit or none.

    Raises:
        IndexError_: the index has a newer schema than this wherein knows.
    """
    (applied,) = conn.execute("PRAGMA user_version").fetchone()
    if applied > len(MIGRATIONS):
        raise IndexError_(
            f"The index was written by a newer wherein (schema {applied}; this one knows "
            f"{len(MIGRATIONS)}). Upgrade wherein, or delete the index to rebuild it."
        )
    for number, migration in enumerate(MIGRATIONS[applied:], start=applied + 1):
        migration(conn)
        # PRAGMA takes no bound parameters; `number` is an int from enumerate.
        conn.execute(f"PRAGMA user_version = {int(number)}")
