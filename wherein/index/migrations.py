"""The code index's numbered schema migrations, run by `wherein.storage.migrations`."""

from __future__ import annotations

import sqlite3

from wherein.storage.lexical import CREATE_LEXICAL_TABLE
from wherein.storage.migrations import Migration, run_statements
from wherein.storage.vectors import make_vector_rows

__all__ = ["MIGRATIONS"]


def m001_create_tables(conn: sqlite3.Connection) -> None:
    run_statements(
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
    run_statements(
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
    """BM25 moves from hand-written postings rows to SQLite's FTS5 (`wherein.storage.lexical`).

    Inserting one row per (term, chunk) was 45% of indexing the standard library; FTS5
    writes the same terms in C. The old postings cannot be turned back into text, so every
    file is marked changed: the next refresh re-chunks it, and each chunk keeps its vector
    because vectors are keyed by the hash of the embedded text, which does not change.
    """
    run_statements(
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
    run_statements(
        conn,
        """
        CREATE TABLE fast_vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL)
            WITHOUT ROWID;
        ALTER TABLE chunks ADD COLUMN has_fast INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX chunks_fast_pending ON chunks(id) WHERE has_fast = 0
        """,
    )


def m006_vector_rows(conn: sqlite3.Connection) -> None:
    """Both vector tables become rowid tables with a unique index on `text_hash`
    (`storage.vectors.make_vector_rows` says why)."""
    for table in ("vectors", "fast_vectors"):
        make_vector_rows(conn, table)


def m007_rechunk_changed_languages(conn: sqlite3.Connection) -> None:
    """The files the chunker now reads otherwise are chunked again: a C++ header named `.h`
    is parsed as C++, C names what `extern "C" {` encloses, C++ names a specialization
    (`f<int>()`) and a method qualified twice or more (`a::B::c`), JavaScript marked `@flow`
    is parsed with its types (TSX's grammar), Elixir no longer reads `!f(x)` as a
    declaration, Rust names the methods of an `impl` for a primitive type, a script with no
    extension is parsed in the language of its `#!` line (it was plain text), Objective-C is
    parsed (`.m`, `.mm` and its `.h` headers; the first two were plain text), Dart names its
    declarations and keeps a method's doc comment and `@override` with it, a file whose name
    the chunker does not know is parsed in the language its Emacs or Vim mode line names
    (any plain-text file may hold one), more names and extensions are mapped (`.bashrc`,
    `Podfile`, `.cu`, ...; they were plain text), generated files and lockfiles of more
    ecosystems are skipped (Dart's `.g.dart`, `pubspec.lock`, ...), and in every parsed
    language the lines between a declaration's parts (a long docstring, a lone `else`) are
    kept in a chunk, where some were left out. Each such file (every file but Markdown) is
    marked changed, as m004 marked every file; its chunks keep their vectors wherever the
    embedded text is the same, as it is for almost every chunk."""
    conn.execute("UPDATE files SET sha256 = '', mtime_ns = -1 WHERE language != 'markdown'")


def m008_rechunk_code(conn: sqlite3.Connection) -> None:
    """Each chunk lists which of its names it declares without a body (a C prototype, a
    method declared in its class: `Chunk.prototypes`), so the definition signal can prefer
    the definition a header announces; and every file but markdown is chunked again, as
    m007 (now) chunks them, for an index made by code that had m007 in an earlier form: a
    namespace is no name of its own (C++, C#, PHP, Haskell, TypeScript, Rust, a Ruby module
    of only classes and modules), a span of a few lines beside a declaration split in parts
    (`module Rack` before its class, a docstring's closing quotes) joins its neighbour, and
    what m007 lists since (Dart, mode lines, more names and extensions, generated files and
    lockfiles) applies. Each file is marked changed; a chunk keeps its vectors wherever its
    embedded text is the same."""
    run_statements(
        conn,
        """
        ALTER TABLE chunks ADD COLUMN prototypes TEXT NOT NULL DEFAULT '[]';
        UPDATE files SET sha256 = '', mtime_ns = -1 WHERE language != 'markdown'
        """,
    )


def m009_rechunk_documented_code(conn: sqlite3.Connection) -> None:
    """Every file but markdown is chunked again, as this release chunks it: a declaration's doc
    comment opens its first part (a comment too long to share one is cut into parts that name
    what they document, as prototypes); a declaration without a body is a prototype in Java, C#,
    Kotlin, Swift, Rust, TypeScript, PHP, Scala, Dart and Go (TypeScript's method signatures and
    Go's interface methods are named now); Java's fields and constants and PHP's and Kotlin's
    properties are named; a Zig constant that only imports or aliases is no name, and a Zig test
    is named `test."..."` (every part of a long test, Rust's too, is named after it); Perl,
    Erlang, OCaml, Nim and Clojure name their declarations, and Scala its operator methods;
    every declarator of `int x, y;` is named; Nim and ClojureScript files are no longer plain
    text; OCaml interfaces are read with their own grammar; a Swift or Objective-C file whose
    `#if` the grammar could not place keeps its names, and so does a Bash function a parse error
    swallowed; a file whose header says it was generated is skipped; a part's header says each
    row once. Each file is marked changed; a chunk keeps its vectors wherever its embedded text
    is the same."""
    conn.execute("UPDATE files SET sha256 = '', mtime_ns = -1 WHERE language != 'markdown'")


MIGRATIONS: list[Migration] = [
    m001_create_tables,
    m002_pending_flag,
    m003_chunk_lengths_index,
    m004_lexical_engine,
    m005_fast_tier,
    m006_vector_rows,
    m007_rechunk_changed_languages,
    m008_rechunk_code,
    m009_rechunk_documented_code,
]
