"""What a long-lived process (`wherein serve`) keeps between searches of one workspace.

A fresh search opens the index, walks the tree, reads each tier's vectors and
counts what is pending; most of that is the same from one query to the next. A
`ResidentIndex` keeps the open store, the tree stamp of the last walk with inotify
watches on its folders (so one read of the event queue replaces the walk while nothing
changed, or a `stat` of known paths where the tree cannot be watched), each tier's
matrix with its query vectors, the coverage counts and the chunk rows read for
earlier results, each keyed by the index state it was read at. Another process
writing the index changes that state, and the next search reads it again.

It also holds the lexical index in memory (`wherein.ranking.postings`) and every
chunk's place (`wherein.index.chunk_places`), built in a thread of its own from one
read-only snapshot once the index has changed: until they are ready (3-5 s for the
standard library's 47,534 chunks, a quarter second for pydantic's 2,257) the searches ask
FTS5, which ranks the same chunks in the same order, and read each candidate's row. A
thread of its own makes a 4-bit copy of a large tier's rows (`wherein.ranking.quantized_rows`)
once a search has read them; from then on searches shortlist by it, with the same result.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wherein.errors import IndexBusy, IndexUnwritable
from wherein.index.change_check import TreeStamp
from wherein.index.chunk_places import read_chunk_places
from wherein.index.location import file_identity
from wherein.index.store import ChunkRow, Store, open_store
from wherein.index.tiers import FAST, FULL, VectorTier
from wherein.index.tree_watch import TreeWatch, WatchRefused
from wherein.index.vector_tables import HeldVectors
from wherein.ranking.candidates import PlaceTable
from wherein.ranking.postings import Postings
from wherein.ranking.quantized_rows import QuantizedRows, can_quantize, quantize_rows
from wherein.ranking.vector import StackedRows, base_rows
from wherein.storage.database import open_read_only

__all__ = ["ROWS_KEPT", "InMemoryIndex", "ResidentIndex", "kept_while_unchanged"]

log = logging.getLogger(__name__)

# Chunk rows kept between searches (a query reads one or two hundred, and a session's
# queries share many): bounds the memory to some tens of MB of chunk text.
ROWS_KEPT = 20_000
# Rows the builder of the in-memory index reads between looks for a running search.
PACE_ROWS = 256


@dataclass(frozen=True)
class InMemoryIndex:
    """What a resident process holds of one generation of the index, built in a thread."""

    generation: str
    postings: Postings
    places: PlaceTable  # every chunk's place, and the arrays a search's candidates come from


# Why each search walks the tree while something in it could not be read for a reason that
# may pass by itself, which no stamp would see (`WalkReport.passing_unreadable`).
UNREADABLE_MEANS_WALKS = (
    "the last walk met files or folders it could not read for a reason other than their "
    "permissions (an I/O error, a change while it was read), so each search walks the tree "
    "again to find them once they can be read, and says what it skipped"
)


class ResidentIndex:
    """The state of one workspace's index kept across searches. Searches on it are serialized."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._store: Store | None = None
        self._store_path: Path | None = None
        self._store_file: tuple[int, int] | None = None  # its (st_dev, st_ino) when opened
        self._stamp: TreeStamp | None = None
        self._stamp_key: str | None = None
        self._watch: TreeWatch | None = None
        # Why the tree is checked by stat instead of watched: said once, then kept.
        self._watch_refused: str | None = None
        # Whether the last walk met something it could not read for a reason that may pass
        # (its stamp is then None and each search walks again); None before the first walk.
        self._walk_met_unreadable: bool | None = None
        self._watch_notice: str | None = None
        self._cached: dict[str, tuple[str, object]] = {}
        # Each tier's vectors as last read: after a change, only new chunks' are read.
        self._vectors: dict[str, HeldVectors] = {}
        # The tiers some chunk still lacks a vector of, when their vectors were last read.
        self._filling: set[str] = set()
        # The index state at which the fast tier was seen complete: no need to look again.
        self.fast_complete_at: str | None = None
        # The in-memory lexical index and chunk places once built, and whether a thread builds them.
        self._in_memory: InMemoryIndex | None = None
        self._memory_building = False
        self._memory_wanted: Path | None = None  # the store a search found them stale for
        self._memory_lock = threading.Lock()
        self._searches = 0  # running now; the builder waits while there are any
        self._no_search = threading.Event()
        self._no_search.set()
        self._builder: threading.Thread | None = None
        self._states: dict[Store, str] | None = None  # within `state_kept`, per store
        # The 4-bit copies of the held tiers' base rows, by id() of the base, and the bases
        # a search found without one; `copies_made` counts the copies made, for the view's key.
        self._copies: dict[int, QuantizedRows] = {}
        self._copies_wanted: dict[int, np.ndarray] = {}
        self._copying = False
        self._quantizer: threading.Thread | None = None
        self.copies_made = 0

    def store(self, path: Path, verify: bool) -> Store:
        """The open store at `path`, opened once (again after a failure or with `verify`, or
        when `path` no longer names the file opened: `wherein forget` removed the index of
        an idle session, or it was deleted by hand, and a session kept on with the deleted
        file while the next process started another one there)."""
        if (
            verify
            or self._store is None
            or self._store_path != path
            or file_identity(path) != self._store_file
        ):
            self.drop_store()
            self._store = open_store(path, verify=verify)
            self._store_path = path
            self._store_file = file_identity(path)
        elif self._store.read_only:  # opened so on a full disk: can it be written now?
            try:
                again = open_store(path)
            except (IndexBusy, IndexUnwritable) as err:  # not now: read what is held
                self._store.notice = str(err)
                return self._store
            if again.read_only:  # not yet: keep what was read from the first, say it again
                self._store.notice = again.notice
                again.close()
            else:
                self.drop_store()
                self._store, self._store_path = again, path
                self._store_file = file_identity(path)
        return self._store

    def drop_store(self) -> None:
        """Forget the store and everything read from it (after an error, or to release it)."""
        if self._store is not None:
            self._store.close()
        self._store = None
        self.forget_walk()
        self._cached.clear()
        self._vectors.clear()
        self._filling.clear()
        self.fast_complete_at = None
        with self._memory_lock:
            self._in_memory = None
            self._memory_wanted = None
            self._copies.clear()
            self._copies_wanted.clear()

    def tree_unchanged(self, key: str) -> bool:
        """True when the last walk of these roots still describes the tree on disk."""
        if self._stamp is None or self._stamp_key != key:
            return False
        if self._watch is None:
            return self._stamp.unchanged()
        if not self._watch.changed() and not self._stamp.refused_opens():
            return True
        self._close_watch()  # the next walk arms a new one
        return False

    def remember_walk(self, key: str, stamp: TreeStamp | None) -> None:
        """Keep what this walk saw, and watch its folders unless watching was refused."""
        self._close_watch()
        self._stamp, self._stamp_key = stamp, key
        self._walk_met_unreadable = stamp is None
        if stamp is None or self._watch_refused is not None:
            return
        try:
            self._watch = TreeWatch(stamp)
        except WatchRefused as err:
            self._watch_refused = str(err)
            self._watch_notice = (
                f"Not watching the tree for changes: {err}. Each search checks every "
                "indexed file's size and time instead."
            )
            log.info(self._watch_notice)

    def change_detector(self) -> tuple[str, str | None] | None:
        """How changes to the tree are found: ("inotify", None), ("stat", why it cannot
        watch), or ("walk", why each search walks the tree); None before the first walk."""
        if self._walk_met_unreadable:
            return "walk", UNREADABLE_MEANS_WALKS
        if self._watch_refused is not None:
            return "stat", self._watch_refused
        if self._walk_met_unreadable is None:
            return None
        return "inotify", None

    def last_walk(self) -> TreeStamp | None:
        """The stamp of the walk that describes the tree, if one does."""
        return self._stamp

    def take_watch_notice(self) -> str | None:
        """Why the tree is not watched, the first time it is asked after the refusal."""
        notice, self._watch_notice = self._watch_notice, None
        return notice

    def forget_walk(self) -> None:
        self._close_watch()
        self._stamp = None
        self._walk_met_unreadable = None  # no walk to describe until the next one

    def _close_watch(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def cached(self, name: str, version: str, build: Callable[[], object]) -> object:
        """`build()`'s value, kept until `version` (an index state) changes."""
        held = self._cached.get(name)
        if held is not None and held[0] == version:
            return held[1]
        value = build()
        self._cached[name] = (version, value)
        return value

    def vectors(self, store: Store, tier: VectorTier) -> tuple[np.ndarray, np.ndarray]:
        """`store.vectors(tier=tier)`, from what was read before plus the chunks new since.

        Held for the workspace's own store only: one read together with package indexes
        (`packages.federation`) is read whole, as a fresh search reads it."""
        if not isinstance(store, Store):
            return store.vectors(tier=tier)
        before = self._vectors.get(tier.name)
        held = store.held_vectors(tier, before)
        self._vectors[tier.name] = held
        chunks = kept_while_unchanged(self, store, "chunks", store.chunk_count)
        if len(held.ids) < chunks:
            self._filling.add(tier.name)
        else:
            self._filling.discard(tier.name)
        if before is not None and base_rows(held.matrix) is not base_rows(before.matrix):
            self._drop_unheld_copies()
        return held.ids, held.matrix

    def _drop_unheld_copies(self) -> None:
        """Forget the 4-bit copies (and wanted ones) of rows no tier holds now: each keeps
        the rows it was made from, 48 MB for the standard library's fast tier."""
        held = self._held_bases()
        with self._memory_lock:
            self._copies = {k: v for k, v in self._copies.items() if k in held}
            self._copies_wanted = {k: v for k, v in self._copies_wanted.items() if k in held}

    def _held_bases(self) -> dict[int, np.ndarray]:
        """The base rows of each tier held now, by id (read at once: a search thread may
        replace them while the quantizer reads)."""
        bases = [base_rows(held.matrix) for held in list(self._vectors.values())]
        return {id(base): base for base in bases}

    def quantized_rows(self, matrix: np.ndarray | StackedRows) -> QuantizedRows | None:
        """The 4-bit copy of `matrix`'s base rows (`wherein.ranking.quantized_rows`) when one is
        made; else None, and a copy is made after this search answers, when worth it: of the
        rows this resident holds (`vectors`) for a tier every chunk has a vector of, not of a
        matrix read whole with package indexes, which is read again each time."""
        base = base_rows(matrix)
        holders = [name for name, held in self._vectors.items() if base_rows(held.matrix) is base]
        if not holders or not can_quantize(base) or any(n in self._filling for n in holders):
            return None  # a tier still filling is read whole again at each of its commits
        with self._memory_lock:
            made = self._copies.get(id(base))
            if made is not None and made.base is base:
                return made
            self._copies_wanted[id(base)] = base
        return None

    def in_memory(self, store: Store) -> InMemoryIndex | None:
        """The lexical index and chunk places held for the store's current content, read once
        per search; None while they are stale or being built, and the caller asks FTS5 and
        reads rows meanwhile. A build is started by `build_wanted`, once the search that
        found them stale has answered: a thread building them holds the GIL for seconds on
        a large index, and made that search wait on every row it read (0.1-0.2 s more after
        a one-file edit of the standard library). None too for a workspace read together
        with its package indexes (`packages.federation`): what is held covers the
        workspace's chunks only, and FTS5 ranks each index with its own statistics."""
        if not isinstance(store, Store):
            return None
        generation = store.get_meta("generation") or "0"
        with self._memory_lock:
            if self._in_memory is not None and self._in_memory.generation == generation:
                return self._in_memory
            if not self._memory_building:
                self._memory_wanted = store.path
        return None

    def build_wanted(self) -> None:
        """Start building what a search found missing, unless a build of it is at work: the
        in-memory index of a stale generation, 4-bit copies of new tier rows."""
        self._quantize_wanted()
        with self._memory_lock:
            path, self._memory_wanted = self._memory_wanted, None
            if path is None or self._memory_building:
                return
            self._memory_building = True
        builder = threading.Thread(
            target=self._build_memory, args=(path,), name="wherein-postings", daemon=True
        )
        self._builder = builder
        builder.start()

    def _quantize_wanted(self) -> None:
        with self._memory_lock:
            if not self._copies_wanted or self._copying:
                return
            self._copying = True
        quantizer = threading.Thread(target=self._quantize, name="wherein-quantize", daemon=True)
        self._quantizer = quantizer
        quantizer.start()

    def _quantize(self) -> None:
        """Make the wanted 4-bit copies, keeping each only if its rows are held still."""
        while True:
            with self._memory_lock:
                if not self._copies_wanted:
                    self._copying = False
                    return
                key, base = self._copies_wanted.popitem()
            try:
                made = quantize_rows(base, self._no_search.wait)
            except (MemoryError, ValueError, RuntimeError) as err:  # these rows are summed whole
                log.warning("No 4-bit copy of a tier's %d rows was made: %s", len(base), err)
                continue
            with self._memory_lock:
                # A search replaces the held vectors without this lock, then drops the copies
                # of rows no longer held with it: read them at once, under it.
                if self._held_bases().get(key) is base:
                    self._copies[key] = made
                    self.copies_made += 1

    @contextlib.contextmanager
    def searching(self) -> Iterator[None]:
        """Held while a search runs: the builder thread waits meanwhile."""
        with self._memory_lock:
            self._searches += 1
            self._no_search.clear()
        try:
            yield
        finally:
            with self._memory_lock:
                self._searches -= 1
                if self._searches == 0:
                    self._no_search.set()

    def _between_searches(self, rows: Iterable[tuple]) -> Iterator[tuple]:
        """`rows`, waiting whenever a search runs: the builder's Python loops hold the GIL,
        and a search beside them waited on each of its own steps (90 ms instead of 10 after
        an edit of the standard library)."""
        for number, row in enumerate(rows):
            if number % PACE_ROWS == 0:
                self._no_search.wait()
            yield row

    def wait_for_memory(self, timeout: float | None = None) -> None:
        """Wait until the threads building the in-memory index and the 4-bit copies (those at
        work) are done."""
        for builder in (self._builder, self._quantizer):
            if builder is not None:
                builder.join(timeout)

    def _build_memory(self, path: Path) -> None:
        """Read every chunk's terms and place in one snapshot, with their generation."""
        built: InMemoryIndex | None = None
        try:
            conn = open_read_only(path)
            try:
                conn.execute("BEGIN")
                found = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
                rows = conn.execute("SELECT rowid, terms FROM lexical ORDER BY rowid")
                postings = Postings(self._between_searches(rows))
                places = read_chunk_places(conn, self._between_searches)
                table = PlaceTable(places, self._between_searches)
                built = InMemoryIndex(found[0] if found else "0", postings, table)
            finally:
                conn.close()
        except sqlite3.Error as err:  # FTS5 goes on answering; the next change tries again
            log.warning("The in-memory lexical index of %s was not built: %s", path, err)
        with self._memory_lock:
            if built is not None:
                self._in_memory = built
            self._memory_building = False

    def state(self, store: Store) -> str:
        """A key that changes whenever the chunks or either tier's vectors change."""
        kept = self._states
        if kept is not None and store in kept:
            return kept[store]
        state = "|".join(store.vectors_versions((FULL, FAST)))
        if kept is not None:
            kept[store] = state
        return state

    @contextlib.contextmanager
    def state_kept(self) -> Iterator[None]:
        """Within it, `state` reads each store's versions once: for a search, whose refresh
        says when it wrote (`forget_states`), and which writes nothing after it (reading them
        at each of its seven asks was a tenth of a warm search of pydantic). The session's
        own background fill writes under `lock`, as searches run, so never meanwhile;
        another process's write is seen by the next search, as it would be had it come a
        moment later."""
        self._states = {}
        try:
            yield
        finally:
            self._states = None

    def forget_states(self) -> None:
        """Within `state_kept`, after this session wrote an index: read its state again."""
        if self._states is not None:
            self._states.clear()

    def chunk_rows(self, store: Store, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """`store.chunk_rows(chunk_ids)`, reading only the rows not kept since the index
        last changed; the dict returned may hold other kept rows too."""
        kept: dict[int, ChunkRow] = self.cached("rows", self.state(store), dict)
        missing = [cid for cid in chunk_ids if cid not in kept]
        if missing:
            if len(kept) + len(missing) > ROWS_KEPT:
                kept.clear()
                missing = list(chunk_ids)
            kept.update(store.chunk_rows(missing))
        return kept


def kept_while_unchanged(
    resident: ResidentIndex | None, store: Store, name: str, build: Callable[[], Any]
) -> Any:
    """`build()`, or for a resident caller its value kept while the index state is the same."""
    if resident is None:
        return build()
    return resident.cached(name, resident.state(store), build)
