"""The SQLite index of one workspace: files, chunks, lexical terms and vectors.

The store knows nothing of ranking: it hands out arrays and rows. How the file is opened,
migrated, checked and written is `wherein.storage.database`'s, shared with the history
index; the vector tables are `wherein.index.vector_tables`'.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.index.folders import in_folders
from wherein.index.migrations import MIGRATIONS
from wherein.index.tiers import FAST
from wherein.index.vector_tables import VectorTables, new_file_token
from wherein.storage.database import (
    Database,
    DatabaseKind,
    delete_sources,
    open_database,
    select_by_ids,
    start_again,
)
from wherein.storage.lexical import lexical_order, matches_any, write_terms

__all__ = ["ChunkRow", "FileState", "FileWrite", "NewChunk", "Store", "open_store"]

APPLICATION_ID = 0x57484952  # "WHIR": marks the file as a wherein index
# Meta key: the largest chunk id ever given. SQLite gives max(id) + 1, again and again to
# the chunks of a file edited last; a resident search keeps vectors by chunk id, so an id
# must name one chunk for the life of the index (`VectorTables.held_vectors`).
CHUNK_IDS_GIVEN = "chunk_ids_given"


@dataclass(frozen=True)
class FileState:
    """What the index remembers of a file, for the stat fast path."""

    id: int
    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class NewChunk:
    """A chunk about to be written, with its lexical terms (repeats kept: BM25 counts them)."""

    start_line: int
    end_line: int
    symbols: Sequence[str]
    kind: str
    header: str
    text: str
    text_hash: str
    terms: str  # `wherein.storage.lexical.joined_terms`
    term_count: int
    # The fast tier's vector (float32 bytes), when it was computed with the chunk.
    fast_vector: bytes | None = None
    prototypes: Sequence[str] = ()  # those of `symbols` declared here without a body


@dataclass(frozen=True)
class FileWrite:
    """One file as `Store.write_files` replaces it: its row and its chunks."""

    path: str
    root: str
    fs_path: bytes
    size: int
    mtime_ns: int
    sha256: str
    language: str
    skipped: str | None
    chunks: Sequence[NewChunk]

    def file_row(self) -> tuple:
        """The values of its `files` row, after the id, in the table's column order."""
        return (
            self.path,
            self.root,
            self.fs_path,
            self.size,
            self.mtime_ns,
            self.sha256,
            self.language,
            self.skipped,
        )


@dataclass(frozen=True)
class ChunkRow:
    """A chunk as read back for a result."""

    id: int
    path: str
    root: str
    fs_path: bytes
    language: str
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    header: str
    text: str
    size: int
    mtime_ns: int
    prototypes: tuple[str, ...] = ()  # those of `symbols` declared here without a body


def open_store(path: Path, verify: bool = False) -> Store:
    """Open (creating if needed) the index at `path`.

    `verify` runs SQLite's quick_check, a scan of the whole file: `wherein index`
    pays it, a search does not (it re-opens with `verify` after a read fails).

    A file that is not a wherein index, or is corrupt, or anything but a regular file at
    the name of the database or its `-wal` or `-shm` (a folder, a FIFO, a link, which
    SQLite would follow or open as one) is moved aside to `<name>.broken-<time>` with its
    companions, and a fresh index is created; the returned store's `notice` says so.

    Raises:
        IndexUnwritable: the directory or the file cannot be written.
        IndexBusy: another process held the file locked too long.
    """
    return open_database(
        Store, path, lambda why: start_again(Store, path, why, " and started a new one"), verify
    )


class Store(VectorTables, Database):
    """One workspace's index file."""

    KIND = DatabaseKind("index", APPLICATION_ID, MIGRATIONS, kept="vectors and files")

    def _created(self, conn: sqlite3.Connection) -> None:
        new_file_token(conn)

    # -- metadata -------------------------------------------------------------

    def bump_generation(self, conn: sqlite3.Connection) -> None:
        """Mark that searchable content changed (cached statistics are now stale)."""
        generation = int(self.get_meta("generation") or 0) + 1
        self.set_meta(conn, "generation", str(generation))

    # -- files ----------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        rows = self.conn.execute("SELECT path, id, size, mtime_ns, sha256 FROM files")
        return {path: FileState(i, size, mtime, sha) for path, i, size, mtime, sha in rows}

    def touch_file(self, conn: sqlite3.Connection, file_id: int, size: int, mtime_ns: int) -> None:
        conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id)
        )

    def delete_files(self, conn: sqlite3.Connection, file_ids: Iterable[int]) -> None:
        delete_sources(conn, "files", "chunks", "file_id", list(file_ids))

    def write_files(self, conn: sqlite3.Connection, files: Sequence[FileWrite]) -> None:
        """Replace everything the index holds for these files, a few statements per batch.

        One statement a chunk, each probing both vector tables, with the vector version
        bumped once a file, was half of the standard library's first index: here the
        chunk, term and vector rows of the whole batch each go in one `executemany`, the
        ids counted on from the largest (the write transaction holds the lock, and it is
        the id SQLite itself would give, but never one given before: `CHUNK_IDS_GIVEN`).
        """
        if not files:
            return
        old = self._file_ids([record.path for record in files])
        if old:
            self.delete_files(conn, old)
        fast = sorted(
            {
                (chunk.text_hash, chunk.fast_vector)
                for record in files
                for chunk in record.chunks
                if chunk.fast_vector is not None
            }
        )
        if fast:  # first, so each chunk row below finds its vector
            self.insert_vectors(conn, fast, FAST)
        (file_id,) = conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()
        (chunk_id,) = conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()
        chunk_id = max(chunk_id, int(self.get_meta(CHUNK_IDS_GIVEN) or 0))
        file_rows, chunk_rows, terms = [], [], []
        for record in files:
            file_id += 1
            file_rows.append((file_id, *record.file_row()))
            for chunk in record.chunks:
                chunk_id += 1
                chunk_rows.append(
                    (
                        chunk_id,
                        file_id,
                        chunk.start_line,
                        chunk.end_line,
                        json.dumps(list(chunk.symbols)),
                        chunk.kind,
                        chunk.header,
                        chunk.text,
                        chunk.text_hash,
                        chunk.term_count,
                        chunk.text_hash,
                        None if chunk.fast_vector is None else 1,
                        chunk.text_hash,
                        json.dumps(list(chunk.prototypes)),
                    )
                )
                terms.append((chunk_id, chunk.terms))
        self.set_meta(conn, CHUNK_IDS_GIVEN, str(chunk_id))
        conn.executemany(
            "INSERT INTO files(id, path, root, fs_path, size, mtime_ns, sha256, language, "
            "skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            file_rows,
        )
        conn.executemany(
            "INSERT INTO chunks(id, file_id, start_line, end_line, symbols, kind, header, text, "
            "text_hash, n_tokens, has_vector, has_fast, prototypes) VALUES (?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, EXISTS (SELECT 1 FROM vectors WHERE text_hash = ?), "
            "coalesce(?, EXISTS (SELECT 1 FROM fast_vectors WHERE text_hash = ?)), ?)",
            chunk_rows,
        )
        write_terms(conn, terms)

    def _file_ids(self, paths: Sequence[str]) -> list[int]:
        select = "SELECT id FROM files WHERE path IN"
        return [row[0] for row in select_by_ids(self.conn, select, list(paths))]

    # -- reads for search -----------------------------------------------------

    def chunk_table(self, path_prefixes: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Ids and token counts of the chunks in scope (all chunks when no prefix is given)."""
        sql = "SELECT c.id, c.n_tokens FROM chunks c"
        params: list[str] = []
        if path_prefixes:
            where, params = in_folders(path_prefixes)
            sql += f" JOIN files f ON f.id = c.file_id WHERE {where}"
        sql += " ORDER BY c.id"
        data = np.array(self.conn.execute(sql, params).fetchall(), dtype=np.int64).reshape(-1, 2)
        return data[:, 0], data[:, 1]

    def lexical_order(
        self, terms: Sequence[str], limit: int, path_prefixes: Sequence[str] = ()
    ) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of chunks in scope holding a term, best first."""
        if not path_prefixes:
            return lexical_order(self.conn, terms, limit)
        where, params = in_folders(path_prefixes)
        scope = f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where}"
        return lexical_order(self.conn, terms, limit, scope, params)

    def lexical_matches(self, terms: Sequence[str]) -> bool:
        """Whether any chunk of the index holds one of `terms`."""
        return matches_any(self.conn, terms)

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        found: dict[int, ChunkRow] = {}
        select = (
            "SELECT c.id, f.path, f.root, f.fs_path, f.language, c.start_line, c.end_line, "
            "c.symbols, c.header, c.text, f.size, f.mtime_ns, c.prototypes FROM chunks c "
            "JOIN files f ON f.id = c.file_id WHERE c.id IN"
        )
        for row in select_by_ids(self.conn, select, list(chunk_ids)):
            chunk_id, path, root, fs_path, language, start, end, symbols, *rest, prototypes = row
            found[chunk_id] = ChunkRow(
                chunk_id,
                path,
                root,
                bytes(fs_path),
                language,
                start,
                end,
                tuple(json.loads(symbols)),
                *rest,
                tuple(json.loads(prototypes)),
            )
        return found

    def file_paths(self) -> list[str]:
        """Display paths of every indexed file that has chunks."""
        return [row[0] for row in self.conn.execute("SELECT path FROM files WHERE skipped IS NULL")]

    def chunk_paths(self) -> dict[int, str]:
        """Every chunk id with its file's display path."""
        return dict(
            self.conn.execute("SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id")
        )

    def chunk_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def counts(self) -> dict[str, int]:
        files, chunks, vectors, fast = self.conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE skipped IS NULL), "
            "(SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors), "
            "(SELECT count(*) FROM fast_vectors)"
        ).fetchone()
        return {"files": files, "chunks": chunks, "vectors": vectors, "fast_vectors": fast}
