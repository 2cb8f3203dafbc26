"""The code index's vector tables: one per tier, a "has a vector" flag per chunk and tier.

A mixin of `Store`: it reads and writes through the store's connection and meta table.
Reads are served from the derived `.npy` cache (`wherein.index.vector_cache`) when it
matches the index state. A resident search keeps what it read (`HeldVectors`) and, after
a change, reads only the vectors of chunks it has not seen: chunk ids are never given twice
(`Store.write_files`) and a chunk's text never changes, so a chunk seen before still has
the vector it had, until the tier is cleared or its model changes.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.errors import IndexUnwritable
from wherein.index.embed_failure import EMBED_FAILURE, embed_failure_of, failure_value
from wherein.index.folders import like_folder
from wherein.index.tiers import FULL, TIERS, VectorTier
from wherein.index.vector_cache import (
    cache_exists,
    discard_vector_cache,
    load_vector_cache,
    save_vector_cache,
)
from wherein.ranking.vector import (
    StackedRows,
    base_rows,
    can_stack,
    rows_not_unit,
    unit_rows,
    zero_rows,
)
from wherein.storage.database import marked_batches, select_by_ids
from wherein.storage.transaction import write_meta
from wherein.storage.vectors import stack_vectors, vector_rows, write_vectors

__all__ = [
    "FILE_TOKEN",
    "STACKED_SHARE",
    "HeldVectors",
    "VectorTables",
    "embedding_text",
    "new_file_token",
]

VECTOR_ITEM_BYTES = 4  # float32
# A random token written when an index file is made: the vector cache's names begin with it.
FILE_TOKEN = "file_token"


# A held matrix stays stacked (`StackedRows`) while its dead rows and the rows added since
# are each at most this share of the rows it was read with; past it, one copy compacts it.
STACKED_SHARE = 0.25
# Rows of zeros in a vector cache looked up in SQLite when `wherein index` checks it: a
# zeroed block of the file is many rows, and any one of them tells.
ZERO_ROWS_CHECKED = 64


@dataclass(frozen=True)
class HeldVectors:
    """A tier's (chunk ids, vectors) as read at one index state, kept by a resident search.

    `matrix` is a plain array, or `StackedRows` over the array first read (`base_ids` its
    rows' chunk ids) after changes that only added chunks of new ids and dropped others.
    """

    version: str  # `vectors_version` when read: while it holds, so do the rows
    epoch: str  # the tier's model and clearings: rows of another epoch are never reused
    ids: np.ndarray
    matrix: np.ndarray | StackedRows
    base_ids: np.ndarray


class VectorTables:
    """Per-tier vectors of the chunks, keyed by the hash of the text embedded.

    Mixed into `Store` before `Database`, whose `get_meta`, `set_meta` and `say` it uses.
    """

    conn: sqlite3.Connection
    path: Path

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
            batches.append(
                (query + "AND f.path LIKE ? ESCAPE '\\' LIMIT ?", (like_folder(prefix),))
            )
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
        self.insert_vectors(conn, vector_rows(items), tier)
        conn.executemany(
            f"UPDATE chunks SET {tier.flag} = 1 WHERE text_hash = ?", [(h,) for h, _ in items]
        )
        if tier is FULL:  # the configured model embeds again: a failure kept is over
            conn.execute("DELETE FROM meta WHERE key = ?", (EMBED_FAILURE,))

    def insert_vectors(
        self, conn: sqlite3.Connection, rows: Sequence[tuple[str, bytes]], tier: VectorTier
    ) -> None:
        """Store (text hash, float32 bytes) rows of `tier` (the chunks' flags are the caller's)."""
        write_vectors(conn, tier.table, rows)
        self._bump_vectors_version(conn, tier)

    def tier_complete(self, tier: VectorTier, identity: str | None) -> bool:
        """Whether every chunk has a vector of `tier` from the model `identity`."""
        return self.get_meta(tier.meta_key) == identity and not self.has_pending(tier)

    def vectors_version(self, tier: VectorTier = FULL) -> str:
        """Changes whenever the tier's vectors or the chunks they belong to change."""
        return self.vectors_versions((tier,))[0]

    def vectors_versions(self, tiers: Sequence[VectorTier]) -> list[str]:
        """`vectors_version` of each tier, read in one query (a resident search asks often).

        It names the derived vector cache, so it starts with the file's own token
        (`FILE_TOKEN`): the counters after it start again in a new file, and a rebuilt
        index must not read the cache its damaged or deleted predecessor left beside it.
        """
        names = [(FILE_TOKEN, "generation", _version_key(tier), tier.meta_key) for tier in tiers]
        wanted = sorted({name for key in names for name in key})
        marks = ",".join("?" * len(wanted))
        values = dict(
            self.conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", wanted)
        )
        return ["/".join(values.get(name) or "0" for name in key) for key in names]

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
        key = _epoch_key(tier)
        self.set_meta(conn, key, str(int(self.get_meta(key) or 0) + 1))

    def held_vectors(self, tier: VectorTier, previous: HeldVectors | None = None) -> HeldVectors:
        """`vectors(tier=tier)` as `HeldVectors`, reading from SQLite only the vectors of the
        chunks `previous` lacks, when it is of the same epoch.

        After a one-file edit of the standard library, reading all 47,534 fast vectors
        again took 0.6-0.8 s of the next resident search, and a copy of the 48 MB matrix
        with the new rows in it 40-300 ms on this machine; the chunk ids and the edited
        file's new vectors, stacked after the rows still alive, take milliseconds.
        """
        version = self.vectors_version(tier)
        if previous is not None and previous.version == version:
            return previous
        epoch = self._vectors_epoch(tier)
        if previous is not None and previous.epoch == epoch and len(previous.ids):
            updated = self._vectors_since(tier, previous, version, epoch)
            # A write between the reads would mix two states: read the whole tier instead.
            if updated is not None and self.vectors_version(tier) == version:
                return updated
        ids, matrix = self.vectors(tier=tier)
        return HeldVectors(version, epoch, ids, matrix, ids)

    def _vectors_since(
        self, tier: VectorTier, previous: HeldVectors, version: str, epoch: str
    ) -> HeldVectors | None:
        """Every chunk's vector of `tier`, `previous`'s rows reused; None when what SQLite
        holds does not fit them (the caller reads the whole tier)."""
        # Two reads, each on an index (`chunks_lengths`; the tier's partial index of pending
        # chunks): one `WHERE flag IS NOT 0 ORDER BY id` scans the table, 1.6x their time.
        every = np.array(self.conn.execute("SELECT id FROM chunks ORDER BY id").fetchall())
        pending = self.conn.execute(f"SELECT id FROM chunks WHERE {tier.flag} = 0").fetchall()
        ids = np.setdiff1d(every.reshape(-1).astype(np.int64), np.array(pending, dtype=np.int64))
        new_ids = np.setdiff1d(ids, previous.ids, assume_unique=True)
        select = (
            f"SELECT c.id, v.vector FROM chunks c JOIN {tier.table} v "
            "ON v.text_hash = c.text_hash WHERE c.id IN"
        )
        found_ids, found = stack_vectors(sorted(select_by_ids(self.conn, select, new_ids.tolist())))
        width = previous.matrix.shape[1]
        if not np.array_equal(found_ids, new_ids) or (len(new_ids) and found.shape[1] != width):
            return None
        found = found.reshape(len(new_ids), width)
        stacked = _stacked(previous, ids, new_ids, found)
        if stacked is not None:
            return HeldVectors(version, epoch, ids, stacked, previous.base_ids)
        # New ids among the old (a tier filled in), or too much changed: one plain copy.
        still = np.isin(previous.ids, ids, assume_unique=True)
        matrix = np.empty((len(ids), width), dtype=np.float32)
        known = np.isin(ids, previous.ids, assume_unique=True)
        matrix[known] = previous.matrix[still]
        matrix[~known] = found
        return HeldVectors(version, epoch, ids, matrix, ids)

    def _vectors_epoch(self, tier: VectorTier) -> str:
        return f"{self.get_meta(tier.meta_key)}|{self.get_meta(_epoch_key(tier)) or 0}"

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

    def _rows_agree(
        self,
        tier: VectorTier,
        ids: np.ndarray,
        matrix: np.ndarray,
        rows: Sequence[int] | None = None,
    ) -> bool:
        """Whether the cache's rows at positions `rows` are, bit for bit, the vectors SQLite
        holds for their chunks. By default its first and last: two lookups that catch rows
        shifted, reordered or from elsewhere (`wherein index` also looks up its rows of
        zeros, `repair_vector_caches`)."""
        if rows is None:
            rows = sorted({0, len(ids) - 1}) if len(ids) else []
        select = (
            f"SELECT c.id, v.vector FROM chunks c JOIN {tier.table} v "
            "ON v.text_hash = c.text_hash WHERE c.id IN"
        )
        stored = dict(select_by_ids(self.conn, select, [int(ids[row]) for row in rows]))
        return all(
            (found := stored.get(int(ids[row]))) is not None
            and bytes(found) == matrix[row].tobytes()
            for row in rows
        )

    def repair_vector_caches(self) -> int:
        """Check each tier's cache for the current state, if there is one, and rebuild it when
        it is damaged: `wherein index` mends what the next search would otherwise meet. Here
        every row is checked to be a unit vector, which a search checks only of its best, and
        a row of zeros (what a zeroed block of the file reads as; no text embeds to it with
        a model in process) to be zeros in SQLite too. Rows still not unit vectors once read
        from SQLite are damaged there: those vectors are dropped, so their chunks are
        embedded again. Returns how many were dropped."""
        dropped = 0
        for tier in TIERS.values():
            if cache_exists(self.path, tier.name, self.vectors_version(tier)):
                ids, matrix = self.vectors(tier=tier)
                zeros = zero_rows(matrix)[:ZERO_ROWS_CHECKED]  # a zeroed block reads so
                if unit_rows(matrix) and self._rows_agree(tier, ids, matrix, zeros):
                    continue
                self.discard_vector_cache(tier)
                ids, matrix = self.vectors(tier=tier)
                damaged = rows_not_unit(matrix)
                if len(damaged):
                    dropped += self._drop_vectors(tier, ids[damaged])
        return dropped

    def note_embed_failure(self, message: str | None, configured: str) -> None:
        """Keep why the configured model (`configured`, as `registry.configured_model` names
        it) could not embed when `wherein index` stopped, for `status` and for searches that
        rank without its vectors; None clears it, as does any vector it writes later
        (`put_vectors`). A write the disk refuses is let go: the run that failed says why."""
        value = failure_value(message, configured)
        if (self.get_meta(EMBED_FAILURE) or "") == value:
            return
        with (
            contextlib.suppress(IndexUnwritable, sqlite3.OperationalError),
            self.transaction() as conn,
        ):
            self.set_meta(conn, EMBED_FAILURE, value)

    def embed_failure(self, configured: str) -> str | None:
        """Why the last `wherein index` could not embed with `configured`, if it could not
        (a failure of another model, configured before, is not this one's)."""
        return embed_failure_of(self.get_meta(EMBED_FAILURE), configured)

    def _drop_vectors(self, tier: VectorTier, ids: np.ndarray) -> int:
        """Delete the tier's vectors of the chunks `ids` (damaged in SQLite), marking every
        chunk of those texts to be embedded again; the notice says so."""
        chunk_ids = [int(i) for i in ids]
        hashes = sorted(
            {
                h
                for (h,) in select_by_ids(
                    self.conn, "SELECT text_hash FROM chunks WHERE id IN", chunk_ids
                )
            }
        )
        with self.transaction() as conn:
            for batch, marks in marked_batches(hashes):
                conn.execute(f"DELETE FROM {tier.table} WHERE text_hash IN ({marks})", batch)
                conn.execute(
                    f"UPDATE chunks SET {tier.flag} = 0 WHERE text_hash IN ({marks})", batch
                )
            self._bump_vectors_version(conn, tier)
        self.say(
            f"{len(hashes)} of the {tier.name} tier's vectors in {self.path} were damaged (not "
            "unit length); dropped them, so their chunks are embedded again."
        )
        return len(hashes)

    def discard_vector_cache(self, tier: VectorTier) -> list[str]:
        """Move aside the tier's cache for the current state (its rows read as damaged), so
        the next read comes from SQLite; returns, and keeps in `notice`, what was done."""
        said: list[str] = []
        discard_vector_cache(self.path, tier.name, self.vectors_version(tier), said)
        for line in said:
            self.say(line)
        return said

    def _read_vectors(self, tier: VectorTier) -> tuple[np.ndarray, np.ndarray]:
        rows = self.conn.execute(
            f"SELECT c.id, v.vector FROM chunks c JOIN {tier.table} v "
            "ON v.text_hash = c.text_hash ORDER BY c.id"
        ).fetchall()
        return stack_vectors(rows)

    def has_vectors(self, tier: VectorTier = FULL) -> bool:
        """Whether the tier holds any vector: a probe (counting them reads every vector)."""
        sql = f"SELECT 1 FROM {tier.table} LIMIT 1"
        return self.conn.execute(sql).fetchone() is not None


def _stacked(
    previous: HeldVectors, ids: np.ndarray, new_ids: np.ndarray, found: np.ndarray
) -> StackedRows | None:
    """`previous`'s base rows still in `ids`, then the rows added since and `found` for
    `new_ids`: None unless that is `ids` in order (every new id above the old ones) and
    little enough changed."""
    if not can_stack(len(ids), np.dtype(np.float32)):
        return None
    if len(new_ids) and len(previous.ids) and new_ids[0] < previous.ids[-1]:
        return None
    held = previous.matrix
    base = base_rows(held)
    if not can_stack(len(base), base.dtype):
        return None
    added_before = held.added if isinstance(held, StackedRows) else base[:0]
    added_ids_before = previous.ids[len(previous.ids) - len(added_before) :]
    alive = np.isin(previous.base_ids, ids, assume_unique=True)
    added_alive = np.isin(added_ids_before, ids, assume_unique=True)
    added = np.concatenate([added_before[added_alive], found]).astype(np.float32, copy=False)
    dead = len(base) - int(np.count_nonzero(alive))
    if max(dead, len(added)) > STACKED_SHARE * len(base):
        return None
    order = np.concatenate([previous.base_ids[alive], added_ids_before[added_alive], new_ids])
    if not np.array_equal(order, ids):
        return None
    return StackedRows(base, None if dead == 0 else alive, added)


def _epoch_key(tier: VectorTier) -> str:
    return f"{tier.name}_vectors_epoch"


def new_file_token(conn: sqlite3.Connection) -> None:
    """Give a new index file its token (`FILE_TOKEN`), inside the transaction making it."""
    write_meta(conn, FILE_TOKEN, secrets.token_hex(8))


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
