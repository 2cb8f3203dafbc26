"""The SQLite index of one workspace: files, chunks, BM25 postings and vectors.

The store knows nothing of ranking: it hands out arrays and rows. Every write
runs in an explicit transaction, so a process killed mid-index leaves the
previous committed state (SQLite's WAL journal guarantees the rest).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.errors import IndexBusy, IndexError_, IndexUnwritable
from wherein.index.migrations import MIGRATIONS, apply_migrations
from wherein.index.transaction import (
    is_unwritable,
    read_meta,
    write_meta,
    write_transaction,
)
from wherein.index.vector_cache import load_vector_cache, save_vector_cache, stack_vectors

__all__ = ["ChunkRow", "FileState", "NewChunk", "Store", "TermIds", "open_store"]

APPLICATION_ID = 0x57484952  # "WHIR": marks the file as a wherein index
BUSY_TIMEOUT_S = 30.0
WAL_RETRY_S = 0.01
SQL_VARIABLE_BATCH = 500


@dataclass(frozen=True)
class FileState:
    """What the index remembers of a file, for the stat fast path."""

    id: int
    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class NewChunk:
    """A chunk about to be written, with its BM25 terms (repeats kept: they are counts)."""

    start_line: int
    end_line: int
    symbols: Sequence[str]
    kind: str
    header: str
    text: str
    text_hash: str
    terms: tuple[str, ...]


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


def open_store(path: Path, verify: bool = False) -> Store:
    """Open (creating if needed) the index at `path`.

    `verify` runs SQLite's quick_check, a scan of the whole file: `wherein index`
    pays it, a search does not (it re-opens with `verify` after a read fails).

    A file that is not a wherein index, or is corrupt, is moved aside to
    `<name>.broken-<time>` and a fresh index is created; the returned store's
    `notice` says so.

    Raises:
        IndexUnwritable: the directory or the file cannot be written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise IndexUnwritable(
            f"Cannot create the index directory {path.parent}: {err.strerror or err}. "
            "Set WHEREIN_HOME to a writable directory."
        ) from err
    try:
        return Store(path, verify)
    except sqlite3.DatabaseError as err:
        if is_unwritable(err):
            raise _unwritable(path, err) from err
        if _is_busy(err):  # locked is not broken: never move a live index aside
            raise IndexBusy(
                f"The index at {path} stayed locked by another process for "
                f"{BUSY_TIMEOUT_S:g} s. Try again when it has finished."
            ) from err
        aside = _aside_name(path)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(str(path) + suffix, str(aside) + suffix)
        store = Store(path)
        store.notice = (
            f"The index at {path} was unreadable ({err}); moved it to {aside} and started "
            "a new one."
        )
        return store


def _aside_name(path: Path) -> Path:
    """`<name>.broken-<time>`, numbered so a second broken file never replaces the first."""
    stem = f"{path.name}.broken-{int(time.time())}"
    aside = path.with_name(stem)
    number = 1
    while aside.exists():
        number += 1
        aside = path.with_name(f"{stem}-{number}")
    return aside


def _is_busy(err: sqlite3.Error) -> bool:
    return "database is locked" in str(err).lower()


def _unwritable(path: Path, err: BaseException) -> IndexUnwritable:
    return IndexUnwritable(
        f"Cannot write the index at {path}: {err}. Free some disk space or set WHEREIN_HOME "
        "to a writable directory."
    )


class Store:
    """One workspace's index file."""

    def __init__(self, path: Path, verify: bool = False) -> None:
        self.path = path
        self.verify = verify
        self.notice: str | None = None
        self.conn = sqlite3.connect(
            str(path), isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
        )
        try:
            self._prepare()
        except BaseException:
            self.conn.close()
            raise

    def _prepare(self) -> None:
        conn = self.conn
        app_id, version, tables = self._header()
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and (version or tables)):
            raise sqlite3.DatabaseError("not a wherein index")
        if version > len(MIGRATIONS):
            raise IndexError_(
                f"The index at {self.path} was written by a newer wherein (schema {version}; "
                f"this one knows {len(MIGRATIONS)}). Upgrade wherein, or delete that file to "
                "rebuild the index."
            )
        self._use_wal()
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if app_id == 0 or version < len(MIGRATIONS):
            self._initialize()
        if not self.verify:
            return
        # quick_check reports damage as a row rather than raising: read the verdict.
        (verdict,) = conn.execute("PRAGMA quick_check(1)").fetchone()
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {' '.join(verdict.split())}")

    def _use_wal(self) -> None:
        """Switch a new file to WAL, retrying while another opener holds it.

        The switch needs an exclusive lock and SQLite answers SQLITE_BUSY at once
        instead of calling the busy handler, so two processes creating the index
        together would otherwise see "database is locked". Once set, the mode is
        stored in the file and later opens do not lock.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            except sqlite3.OperationalError as err:
                if not _is_busy(err) or time.monotonic() > deadline:
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

        Two processes opening a fresh index at once (a search beside `wherein index`)
        would otherwise both create the tables, and the loser would take the winner's
        index for a broken one and move it aside.
        """
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            app_id, version, tables = self._header()
            if app_id == 0:
                if version or tables:
                    raise sqlite3.DatabaseError("not a wherein index")
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            apply_migrations(conn)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        return write_transaction(self.conn, lambda err: _unwritable(self.path, err))

    # -- metadata -------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        return read_meta(self.conn, key)

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        write_meta(conn, key, value)

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
        for batch in _batches(list(file_ids)):
            marks = ",".join("?" * len(batch))
            conn.execute(
                f"DELETE FROM postings WHERE chunk_id IN "
                f"(SELECT id FROM chunks WHERE file_id IN ({marks}))",
                batch,
            )
            conn.execute(f"DELETE FROM chunks WHERE file_id IN ({marks})", batch)
            conn.execute(f"DELETE FROM files WHERE id IN ({marks})", batch)

    def write_file(
        self,
        conn: sqlite3.Connection,
        *,
        path: str,
        root: str,
        fs_path: bytes,
        size: int,
        mtime_ns: int,
        sha256: str,
        language: str,
        skipped: str | None,
        chunks: Sequence[NewChunk],
        term_ids: TermIds,
    ) -> None:
        """Replace everything the index holds for one file."""
        row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row:
            self.delete_files(conn, [row[0]])
        cursor = conn.execute(
            "INSERT INTO files(path, root, fs_path, size, mtime_ns, sha256, language, skipped) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (path, root, fs_path, size, mtime_ns, sha256, language, skipped),
        )
        file_id = cursor.lastrowid
        postings: list[tuple[int, int, int]] = []
        for chunk in chunks:
            term_counts = Counter(chunk.terms)
            cursor = conn.execute(
                "INSERT INTO chunks(file_id, start_line, end_line, symbols, kind, header, text, "
                "text_hash, n_tokens, has_vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "EXISTS (SELECT 1 FROM vectors WHERE text_hash = ?))",
                (
                    file_id,
                    chunk.start_line,
                    chunk.end_line,
                    json.dumps(list(chunk.symbols)),
                    chunk.kind,
                    chunk.header,
                    chunk.text,
                    chunk.text_hash,
                    len(chunk.terms),
                    chunk.text_hash,
                ),
            )
            chunk_id = cursor.lastrowid
            for term, count in term_counts.items():
                postings.append((term_ids.id_for(conn, term), chunk_id, count))
        conn.executemany("INSERT INTO postings(term_id, chunk_id, tf) VALUES (?, ?, ?)", postings)

    def term_ids(self) -> TermIds:
        return TermIds()

    # -- vectors --------------------------------------------------------------

    def pending_texts(self, limit: int, paths_first: Sequence[str] = ()) -> list[tuple[str, str]]:
        """(text_hash, text to embed) for chunks that have no vector yet.

        Chunks of `paths_first` come first, so a focused scope warms before the rest.
        """
        rows: list[tuple[str, str]] = []
        seen: set[str] = set()
        query = (
            "SELECT c.text_hash, f.path, c.symbols, c.header, c.text FROM chunks c "
            "JOIN files f ON f.id = c.file_id "
            "WHERE c.has_vector = 0 "
        )
        batches: list[tuple[str, tuple]] = []
        for prefix in paths_first:
            batches.append((query + "AND f.path LIKE ? ESCAPE '\\' LIMIT ?", (_like(prefix),)))
        batches.append((query + "LIMIT ?", ()))
        for sql, params in batches:
            for text_hash, path, symbols, header, text in self.conn.execute(sql, (*params, limit)):
                if text_hash not in seen:
                    seen.add(text_hash)
                    rows.append(
                        (text_hash, embedding_text(path, json.loads(symbols), header, text))
                    )
                    if len(rows) >= limit:
                        return rows
        return rows

    def pending_count(self) -> tuple[int, int]:
        """(files, chunks) still waiting for a vector."""
        row = self.conn.execute(
            "SELECT count(DISTINCT file_id), count(*) FROM chunks WHERE has_vector = 0"
        ).fetchone()
        return int(row[0]), int(row[1])

    def put_vectors(self, conn: sqlite3.Connection, items: Sequence[tuple[str, np.ndarray]]):
        conn.executemany(
            "INSERT OR REPLACE INTO vectors(text_hash, vector) VALUES (?, ?)",
            [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
        )
        conn.executemany(
            "UPDATE chunks SET has_vector = 1 WHERE text_hash = ?", [(h,) for h, _ in items]
        )
        self._bump_vectors_version(conn)

    def _bump_vectors_version(self, conn: sqlite3.Connection) -> None:
        """Mark that the set of vectors changed, so the derived vector cache is rebuilt."""
        row = conn.execute("SELECT value FROM meta WHERE key = 'vectors_version'").fetchone()
        self.set_meta(conn, "vectors_version", str(int(row[0] if row else 0) + 1))

    def drop_orphan_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)")

    def clear_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors")
        conn.execute("UPDATE chunks SET has_vector = 0")
        self._bump_vectors_version(conn)

    # -- reads for search -----------------------------------------------------

    def chunk_table(self, path_prefixes: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Ids and token counts of the chunks in scope (all chunks when no prefix is given)."""
        sql = "SELECT c.id, c.n_tokens FROM chunks c"
        params: list[str] = []
        if path_prefixes:
            sql += " JOIN files f ON f.id = c.file_id WHERE " + " OR ".join(
                "f.path LIKE ? ESCAPE '\\'" for _ in path_prefixes
            )
            params = [_like(p) for p in path_prefixes]
        sql += " ORDER BY c.id"
        data = np.array(self.conn.execute(sql, params).fetchall(), dtype=np.int64).reshape(-1, 2)
        return data[:, 0], data[:, 1]

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Chunk ids and term counts for one term."""
        rows = self.conn.execute(
            "SELECT p.chunk_id, p.tf FROM postings p JOIN terms t ON t.id = p.term_id "
            "WHERE t.term = ?",
            (term,),
        ).fetchall()
        data = np.array(rows, dtype=np.int64).reshape(-1, 2)
        return data[:, 0], data[:, 1]

    def document_frequencies(self, path_prefixes: Sequence[str] = ()) -> np.ndarray:
        """How many chunks in scope hold each term: the BM25 epsilon floor needs the mean idf."""
        if not path_prefixes:
            sql, params = "SELECT count(*) FROM postings GROUP BY term_id", []
        else:
            # CROSS JOIN fixes the order: files in scope first, then their postings by index.
            # Left to itself SQLite scans every posting (5.5 M rows in a site-packages root:
            # 21 s for a one-file focus, 1 ms this way).
            sql = (
                "SELECT count(*) FROM files f CROSS JOIN chunks c ON c.file_id = f.id "
                "CROSS JOIN postings p ON p.chunk_id = c.id WHERE "
                + " OR ".join("f.path LIKE ? ESCAPE '\\'" for _ in path_prefixes)
                + " GROUP BY p.term_id"
            )
            params = [_like(p) for p in path_prefixes]
        rows = self.conn.execute(sql, params).fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    def vectors(self, chunk_ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, unit vectors) for chunks that have a vector.

        Served from the derived cache file when it matches the index state, else read
        from SQLite and cached for the next search.
        """
        key = "/".join(
            self.get_meta(name) or "0" for name in ("generation", "vectors_version", "embedder")
        )
        cached = load_vector_cache(self.path, key)
        if cached is None:
            ids, matrix = self._read_vectors()
            save_vector_cache(self.path, key, ids, matrix)
        else:
            ids, matrix = cached
        if chunk_ids is not None and len(ids):
            keep = np.isin(ids, chunk_ids)
            ids, matrix = ids[keep], matrix[keep]
        return ids, matrix

    def _read_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        rows = self.conn.execute(
            "SELECT c.id, v.vector FROM chunks c JOIN vectors v ON v.text_hash = c.text_hash "
            "ORDER BY c.id"
        ).fetchall()
        return stack_vectors(rows)

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        found: dict[int, ChunkRow] = {}
        for batch in _batches(list(chunk_ids)):
            marks = ",".join("?" * len(batch))
            for row in self.conn.execute(
                "SELECT c.id, f.path, f.root, f.fs_path, f.language, c.start_line, c.end_line, "
                "c.symbols, c.header, c.text, f.size, f.mtime_ns FROM chunks c "
                f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
                batch,
            ):
                found[row[0]] = ChunkRow(
                    row[0], row[1], row[2], bytes(row[3]), row[4], row[5], row[6],
                    tuple(json.loads(row[7])), row[8], row[9], row[10], row[11],
                )  # fmt: skip
        return found

    def file_paths(self) -> list[str]:
        """Display paths of every indexed file that has chunks."""
        return [row[0] for row in self.conn.execute("SELECT path FROM files WHERE skipped IS NULL")]

    def chunk_paths(self) -> dict[int, str]:
        """Every chunk id with its file's display path."""
        return dict(
            self.conn.execute("SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id")
        )

    def counts(self) -> dict[str, int]:
        files, chunks, vectors = self.conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE skipped IS NULL), "
            "(SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors)"
        ).fetchone()
        return {"files": files, "chunks": chunks, "vectors": vectors}


class TermIds:
    """BM25 term ids, loaded from the terms table only when a file is actually written.

    A refresh that finds nothing changed (every search starts with one) never pays
    for reading the whole vocabulary.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] | None = None

    def id_for(self, conn: sqlite3.Connection, term: str) -> int:
        if self._ids is None:
            self._ids = dict(conn.execute("SELECT term, id FROM terms"))
        term_id = self._ids.get(term)
        if term_id is None:
            term_id = conn.execute("INSERT INTO terms(term) VALUES (?)", (term,)).lastrowid
            self._ids[term] = term_id
        return term_id


def embedding_text(path: str, symbols: Sequence[str], header: str, text: str) -> str:
    """What the model reads for a chunk: where it is, what it declares, then the code."""
    lines = [path]
    if symbols:
        lines.append(" ".join(symbols))
    if header:
        lines.append(header)
    lines.append(text)
    return "\n".join(lines)


def _like(prefix: str) -> str:
    escaped = prefix.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"


def _batches(items: list, size: int = SQL_VARIABLE_BATCH) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
