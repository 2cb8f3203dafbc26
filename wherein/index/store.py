"""The SQLite index of one workspace: files, chunks, lexical terms and vectors.

The store knows nothing of ranking: it hands out arrays and rows. Every write
runs in an explicit transaction, so a process killed mid-index leaves the
previous committed state (SQLite's WAL journal guarantees the rest).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.errors import IndexBusy, IndexError_, IndexUnwritable
from wherein.index.aside import SQLITE_SUFFIXES, database_not_regular, move_aside
from wherein.index.lexical import (
    check_lexical,
    delete_chunk_terms,
    lexical_order,
    matches_any,
    write_chunk_terms,
)
from wherein.index.migrations import MIGRATIONS, apply_migrations
from wherein.index.tiers import FAST, FULL, TIERS, VectorTier
from wherein.index.transaction import (
    is_unwritable,
    read_meta,
    write_meta,
    write_transaction,
)
from wherein.index.vector_cache import (
    cache_exists,
    load_vector_cache,
    save_vector_cache,
    stack_vectors,
)

__all__ = ["ChunkRow", "FileState", "FileWrite", "NewChunk", "Store", "open_store"]

APPLICATION_ID = 0x57484952  # "WHIR": marks the file as a wherein index
BUSY_TIMEOUT_S = 30.0
WAL_RETRY_S = 0.01
SQL_VARIABLE_BATCH = 500
VECTOR_ITEM_BYTES = 4  # float32


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
    terms: tuple[str, ...]
    # The fast tier's vector (float32 bytes), when it was computed with the chunk.
    fast_vector: bytes | None = None


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
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise IndexUnwritable(
            f"Cannot create the index directory {path.parent}: {err.strerror or err}. "
            "Set WHEREIN_HOME to a writable directory."
        ) from err
    irregular = database_not_regular(path)
    if irregular is not None:
        return _start_again(path, irregular)
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
        return _start_again(path, str(err))


def _start_again(path: Path, why: str) -> Store:
    """Move the unusable index aside with its companions and open a new one in its place."""
    try:
        aside = move_aside(path, SQLITE_SUFFIXES)
    except OSError as err:
        raise _unwritable(path, err) from err
    store = Store(path)
    store.notice = (
        f"The index at {path} was unreadable ({why}); moved it to {aside} and started a new one."
    )
    return store


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
        if check_lexical(conn):
            self.notice = (
                f"The lexical index in {self.path} was damaged; rebuilt it from the terms "
                "it stores (vectors and files kept)."
            )

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

    def say(self, message: str) -> None:
        """Add a sentence to `notice`, for the caller to show once."""
        self.notice = message if self.notice is None else f"{self.notice} {message}"

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
            delete_chunk_terms(conn, batch)
            conn.execute(f"DELETE FROM chunks WHERE file_id IN ({marks})", batch)
            conn.execute(f"DELETE FROM files WHERE id IN ({marks})", batch)

    def write_files(self, conn: sqlite3.Connection, files: Sequence[FileWrite]) -> None:
        """Replace everything the index holds for these files, a few statements per batch.

        One statement a chunk, each probing both vector tables, with the vector version
        bumped once a file, was half of the standard library's first index: here the
        chunk, term and vector rows of the whole batch each go in one `executemany`, the
        ids counted on from the largest (the write transaction holds the lock, and it is
        the id SQLite itself would give).
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
            self._insert_vectors(conn, fast, FAST)
        (file_id,) = conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()
        (chunk_id,) = conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()
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
                        len(chunk.terms),
                        chunk.text_hash,
                        None if chunk.fast_vector is None else 1,
                        chunk.text_hash,
                    )
                )
                terms.append((chunk_id, chunk.terms))
        conn.executemany(
            "INSERT INTO files(id, path, root, fs_path, size, mtime_ns, sha256, language, "
            "skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            file_rows,
        )
        conn.executemany(
            "INSERT INTO chunks(id, file_id, start_line, end_line, symbols, kind, header, text, "
            "text_hash, n_tokens, has_vector, has_fast) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "EXISTS (SELECT 1 FROM vectors WHERE text_hash = ?), "
            "coalesce(?, EXISTS (SELECT 1 FROM fast_vectors WHERE text_hash = ?)))",
            chunk_rows,
        )
        write_chunk_terms(conn, terms)

    def _file_ids(self, paths: Sequence[str]) -> list[int]:
        ids: list[int] = []
        for batch in _batches(list(paths)):
            marks = ",".join("?" * len(batch))
            ids.extend(
                row[0]
                for row in self.conn.execute(f"SELECT id FROM files WHERE path IN ({marks})", batch)
            )
        return ids

    # -- vectors --------------------------------------------------------------

    def pending_texts(
        self, limit: int, paths_first: Sequence[str] = (), tier: VectorTier = FULL
    ) -> list[tuple[str, str]]:
        """(text_hash, text to embed) for chunks that have no vector of `tier` yet.

        Chunks of `paths_first` come first, so a focused scope warms before the rest.
        """
        rows: list[tuple[str, str]] = []
        seen: set[str] = set()
        query = (
            "SELECT c.text_hash, f.path, c.symbols, c.header, c.text FROM chunks c "
            "JOIN files f ON f.id = c.file_id "
            f"WHERE c.{tier.flag} = 0 "
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

    def pending_count(self, tier: VectorTier = FULL) -> tuple[int, int]:
        """(files, chunks) still waiting for a vector of `tier`.

        One statement, so one snapshot. The pending chunks are counted on their partial
        index; their files, when every chunk is pending (a tier not started), on the
        file index: reading each pending chunk's row for its file took 42 ms of a search
        of the standard library, this 7 ms.
        """
        row = self.conn.execute(
            "SELECT CASE WHEN pending.n = 0 THEN 0 "
            "WHEN pending.n = total.n THEN (SELECT count(DISTINCT file_id) FROM chunks) "
            f"ELSE (SELECT count(DISTINCT file_id) FROM chunks WHERE {tier.flag} = 0) END, "
            f"pending.n FROM (SELECT count(*) AS n FROM chunks WHERE {tier.flag} = 0) pending, "
            "(SELECT count(*) AS n FROM chunks) total"
        ).fetchone()
        return int(row[0]), int(row[1])

    def has_pending(self, tier: VectorTier = FULL) -> bool:
        """Whether any chunk waits for a vector of `tier` (an index probe, not a count)."""
        sql = f"SELECT 1 FROM chunks WHERE {tier.flag} = 0 LIMIT 1"
        return self.conn.execute(sql).fetchone() is not None

    def put_vectors(
        self,
        conn: sqlite3.Connection,
        items: Sequence[tuple[str, np.ndarray]],
        tier: VectorTier = FULL,
    ) -> None:
        rows = [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]
        self._insert_vectors(conn, rows, tier)
        conn.executemany(
            f"UPDATE chunks SET {tier.flag} = 1 WHERE text_hash = ?", [(h,) for h, _ in items]
        )

    def _insert_vectors(
        self, conn: sqlite3.Connection, rows: Sequence[tuple[str, bytes]], tier: VectorTier
    ) -> None:
        conn.executemany(
            f"INSERT OR REPLACE INTO {tier.table}(text_hash, vector) VALUES (?, ?)", rows
        )
        self._bump_vectors_version(conn, tier)

    def tier_complete(self, tier: VectorTier, identity: str | None) -> bool:
        """Whether every chunk has a vector of `tier` from the model `identity`."""
        return self.get_meta(tier.meta_key) == identity and not self.has_pending(tier)

    def vectors_version(self, tier: VectorTier = FULL) -> str:
        """Changes whenever the tier's vectors or the chunks they belong to change."""
        return self.vectors_versions((tier,))[0]

    def vectors_versions(self, tiers: Sequence[VectorTier]) -> list[str]:
        """`vectors_version` of each tier, read in one query (a resident search asks often)."""
        names = [("generation", _version_key(tier), tier.meta_key) for tier in tiers]
        wanted = sorted({name for trio in names for name in trio})
        marks = ",".join("?" * len(wanted))
        values = dict(
            self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", wanted)
        )
        return ["/".join(values.get(name) or "0" for name in trio) for trio in names]

    def _bump_vectors_version(self, conn: sqlite3.Connection, tier: VectorTier) -> None:
        """Mark that the set of vectors changed, so the derived vector cache is rebuilt."""
        key = _version_key(tier)
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        self.set_meta(conn, key, str(int(row[0] if row else 0) + 1))

    def drop_orphan_vectors(self, conn: sqlite3.Connection) -> None:
        for tier in TIERS.values():
            conn.execute(
                f"DELETE FROM {tier.table} WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"
            )

    def clear_vectors(self, conn: sqlite3.Connection, tier: VectorTier = FULL) -> None:
        conn.execute(f"DELETE FROM {tier.table}")
        conn.execute(f"UPDATE chunks SET {tier.flag} = 0")
        self._bump_vectors_version(conn, tier)

    # -- reads for search -----------------------------------------------------

    def chunk_table(self, path_prefixes: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Ids and token counts of the chunks in scope (all chunks when no prefix is given)."""
        sql = "SELECT c.id, c.n_tokens FROM chunks c"
        params: list[str] = []
        if path_prefixes:
            where, params = _in_folders(path_prefixes)
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
        where, params = _in_folders(path_prefixes)
        scope = f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where}"
        return lexical_order(self.conn, terms, limit, scope, params)

    def lexical_matches(self, terms: Sequence[str]) -> bool:
        """Whether any chunk of the index holds one of `terms`."""
        return matches_any(self.conn, terms)

    def vectors(
        self, chunk_ids: np.ndarray | None = None, tier: VectorTier = FULL
    ) -> tuple[np.ndarray, np.ndarray]:
        """(chunk ids, unit vectors) for chunks that have a vector of `tier`.

        Served from the derived cache file when it matches the index state and its checks
        (`vector_cache.load_vector_cache`, then `_rows_agree`), else read from SQLite and
        cached for the next search; what saving had to move aside is added to `notice`.
        """
        key = self.vectors_version(tier)
        cached = load_vector_cache(self.path, tier.name, key, self._vector_shape(tier))
        if cached is not None and not self._rows_agree(tier, *cached):
            cached = None
        if cached is None:
            ids, matrix = self._read_vectors(tier)
            said: list[str] = []
            save_vector_cache(self.path, tier.name, key, ids, matrix, said)
            for line in said:
                self.say(line)
        else:
            ids, matrix = cached
        if chunk_ids is not None and len(ids):
            keep = np.isin(ids, chunk_ids)
            ids, matrix = ids[keep], matrix[keep]
        return ids, matrix

    def _vector_shape(self, tier: VectorTier) -> tuple[int, int]:
        """(rows, width) that `_read_vectors` returns, from two counts and one vector: what a
        cache file must hold to be used, learnt without reading every vector."""
        (rows,) = self.conn.execute(
            f"SELECT (SELECT count(*) FROM chunks) - "
            f"(SELECT count(*) FROM chunks WHERE {tier.flag} = 0)"
        ).fetchone()
        if not rows:
            return 0, 0
        row = self.conn.execute(f"SELECT length(vector) FROM {tier.table} LIMIT 1").fetchone()
        return int(rows), (int(row[0]) if row else 0) // VECTOR_ITEM_BYTES

    def _rows_agree(self, tier: VectorTier, ids: np.ndarray, matrix: np.ndarray) -> bool:
        """Whether the cache's first and last rows are, bit for bit, the vectors SQLite holds
        for their chunks: two lookups that catch rows shifted, reordered or from elsewhere."""
        for row in sorted({0, len(ids) - 1}) if len(ids) else ():
            found = self.conn.execute(
                f"SELECT v.vector FROM chunks c JOIN {tier.table} v ON v.text_hash = c.text_hash "
                "WHERE c.id = ?",
                (int(ids[row]),),
            ).fetchone()
            if found is None or bytes(found[0]) != matrix[row].tobytes():
                return False
        return True

    def repair_vector_caches(self) -> None:
        """Check each tier's cache for the current state, if there is one, and rebuild it when
        it is damaged: `wherein index` mends what the next search would otherwise meet."""
        for tier in TIERS.values():
            if cache_exists(self.path, tier.name, self.vectors_version(tier)):
                self.vectors(tier=tier)

    def _read_vectors(self, tier: VectorTier) -> tuple[np.ndarray, np.ndarray]:
        rows = self.conn.execute(
            f"SELECT c.id, v.vector FROM chunks c JOIN {tier.table} v "
            "ON v.text_hash = c.text_hash ORDER BY c.id"
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
                chunk_id, path, root, fs_path, language, start, end, symbols, *rest = row
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

    def has_vectors(self, tier: VectorTier = FULL) -> bool:
        """Whether the tier holds any vector: a probe (counting them reads every vector)."""
        sql = f"SELECT 1 FROM {tier.table} LIMIT 1"
        return self.conn.execute(sql).fetchone() is not None

    def counts(self) -> dict[str, int]:
        files, chunks, vectors, fast = self.conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE skipped IS NULL), "
            "(SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors), "
            "(SELECT count(*) FROM fast_vectors)"
        ).fetchone()
        return {"files": files, "chunks": chunks, "vectors": vectors, "fast_vectors": fast}


def _version_key(tier: VectorTier) -> str:
    # The full tier keeps the key it had before tiers existed, so old caches stay valid.
    return "vectors_version" if tier is FULL else f"{tier.name}_vectors_version"


def embedding_text(path: str, symbols: Sequence[str], header: str, text: str) -> str:
    """What the model reads for a chunk: where it is, what it declares, then the code."""
    lines = [path]
    if symbols:
        lines.append(" ".join(symbols))
    if header:
        lines.append(header)
    lines.append(text)
    return "\n".join(lines)


def _in_folders(prefixes: Sequence[str]) -> tuple[str, list[str]]:
    """A WHERE clause on `f.path` (files aliased `f`) for these folders, and its values."""
    return " OR ".join("f.path LIKE ? ESCAPE '\\'" for _ in prefixes), [_like(p) for p in prefixes]


def _like(prefix: str) -> str:
    escaped = prefix.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"


def _batches(items: list, size: int = SQL_VARIABLE_BATCH) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
