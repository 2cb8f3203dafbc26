"""Bring an index up to date with the files on disk, then embed what is pending.

Rules (docs/contracts.md "Index"): a file whose size and mtime_ns are unchanged is
skipped without reading; a file whose sha256 is unchanged is not re-chunked; a
chunk whose embedded text is unchanged keeps its vector; deleted files drop
out. Files are written in small transactions, so a crash loses at most the
batch in flight and never leaves a half-written file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import sqlite3
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wherein.embedding.base import Embedder
from wherein.errors import IndexUnwritable
from wherein.index.change_check import (
    MAX_UNREADABLE_KEPT,
    STAMP_FILE_NAME,
    TreeStamp,
    load_stamp,
    save_stamp,
)
from wherein.index.location import INDEX_FILE_NAME, LOCK_FILE_NAME, index_dir
from wherein.index.store import FileWrite, Store, open_store
from wherein.index.tiers import FAST, FULL, VectorTier
from wherein.safe_files import not_regular
from wherein.storage.aside import move_aside
from wherein.storage.paths import refused_advice
from wherein.walk_records import note_unreadable
from wherein.workspace import FileEntry, Root, WalkReport, walk_root

if TYPE_CHECKING:  # prepare imports the chunker and its grammars: only a changed file needs them
    from wherein.index.prepare import PreparedFile

__all__ = [
    "RefreshReport",
    "check_identity",
    "embed_pending",
    "index_lock",
    "refresh_index",
    "refresh_when_changed",
    "remember_stamp",
    "search_lock",
    "walk_key",
]

# Commit after this many changed files or this many seconds, whichever first:
# small enough that a crash loses little, large enough to keep SQLite fast.
COMMIT_EVERY_FILES = 200
COMMIT_EVERY_S = 2.0
# A batch smaller than that is committed every eighth of it (at least this many files):
# what is written after the workers' last file is written alone, while they are done. Two
# hundred files were the whole of pydantic's package, so its first search waited 0.2 s
# after the last file was chunked; an eighth at a time, 0.89x (paired over 10 rounds). The
# standard library keeps 200: a commit every 0.1 s instead made its first search 1.16x.
COMMIT_MIN_FILES = 16
EMBED_BATCH = 64
# Progress stages: "embed" for the configured model keeps the name the bar always showed.
STAGE_OF_TIER = {"full": "embed", "fast": "fast"}

Progress = Callable[[str, int, int], None]
# The lock file: created if missing, never through a link, never waiting on a FIFO.
LOCK_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | os.O_CLOEXEC
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
)

logger = logging.getLogger(__name__)


@dataclass
class RefreshReport:
    """What one refresh did, for the summary line and the search's `pending` block."""

    files_seen: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    chunks_written: int = 0
    chunks_embedded: int = 0
    pending_files: int = 0
    pending_chunks: int = 0
    skipped: Counter = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)
    passing_unreadable: int = 0  # as `WalkReport.passing_unreadable`, reading files too
    refused: list[str] = field(default_factory=list)  # as `WalkReport.refused`, reading too
    notices: list[str] = field(default_factory=list)
    seconds: float = 0.0
    updated: bool = True  # False when another process held the lock
    stamp: TreeStamp | None = None  # what the walk saw, for a resident process's next check
    # Changed files left for the next refresh when its deadline came first (a search's
    # budget); their rows stay as they were, and the refresh keeps no stamp.
    files_left: int = 0


@contextlib.contextmanager
def index_lock(
    directory: Path, wait: bool, notices: list[str] | None = None, create: bool = True
) -> Iterator[bool | None]:
    """Hold the workspace's write lock; yields False when `wait` is off and it is taken.

    Anything but a regular file at the lock's name (a folder, a FIFO, a link) is moved
    aside and a fresh lock file made; `notices` (else the log) says so. Without `create`,
    a missing index folder is not made and None is yielded: for work that must not outlive
    the index it began on.
    """
    path = directory / LOCK_FILE_NAME
    if not create and not directory.is_dir():
        yield None
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise IndexUnwritable(
            f"Cannot create the index directory {directory}: {err.strerror or err}. "
            f"{refused_advice(directory, err)}."
        ) from err
    fd = _open_lock_file(path, notices)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# How often a search waiting for another process's first build tries the lock again.
FIRST_BUILD_POLL_S = 0.1


@contextlib.contextmanager
def search_lock(directory: Path, budget_s: float, notices: list[str]) -> Iterator[bool]:
    """The write lock for a search: `index_lock` without waiting, except while another
    process builds an index that holds no file yet. A search then has nothing to answer
    from ("No results." for code that is there: two first searches at once, as an agent
    makes them), so it waits for that build, up to `budget_s`."""
    with index_lock(directory, wait=False, notices=notices) as locked:
        if locked or budget_s <= 0 or _holds_files(directory / INDEX_FILE_NAME):
            yield locked
            return
    deadline = time.monotonic() + budget_s
    while True:
        time.sleep(FIRST_BUILD_POLL_S)
        with index_lock(directory, wait=False, notices=notices) as locked:
            if locked or time.monotonic() >= deadline:
                if not locked:
                    notices.append(
                        f"Another process is building this index for the first time and did "
                        f"not finish within {budget_s:g} s (search.cold_budget_s): these "
                        "results cover only the files it has written so far."
                    )
                yield locked
                return


def _holds_files(path: Path) -> bool:
    """Whether the index at `path` holds any file yet, read without taking part in a write."""
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT EXISTS (SELECT 1 FROM files)").fetchone()[0] == 1
    except sqlite3.Error:  # no table yet, or a file another process is still creating
        return False


def _open_lock_file(path: Path, notices: list[str] | None) -> int:
    """The lock file's descriptor, opened without following a link or waiting on a FIFO."""
    for _attempt in range(2):
        try:
            kind = not_regular(path)
        except OSError as err:  # the index folder may not be searched (mode 000)
            raise _lock_unusable(path, err) from err
        if kind is not None:
            try:
                aside = move_aside(path)
            except OSError as err:
                raise _lock_unusable(path, err) from err
            message = (
                f"The lock file {path} was {kind}, not a regular file; moved it to {aside} "
                "and made a new one."
            )
            if notices is None:
                logger.warning(message)
            else:
                notices.append(message)
        try:
            fd = os.open(path, LOCK_OPEN_FLAGS, 0o644)
        except OSError as err:
            if not_regular(path) is not None:  # replaced since it was looked at: once more
                continue
            fd = _read_only_lock(path, err)
            if fd is None:
                raise _lock_unusable(path, err) from err
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
    raise _lock_unusable(path, OSError("it keeps being replaced by something else"))


def _read_only_lock(path: Path, err: OSError) -> int | None:
    """The lock file opened for reading, when a read-only data home (a read-only mount, a
    folder without write permission) refused to open it for writing: `flock` needs no
    write access, and a search then reads the index as it is (`Database.read_only`), as
    `status` does. None when that is not why, or it cannot be read either."""
    if err.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
        return None
    try:
        return os.open(path, LOCK_OPEN_FLAGS & ~(os.O_RDWR | os.O_CREAT) | os.O_RDONLY)
    except OSError:
        return None


def _lock_unusable(path: Path, err: OSError) -> IndexUnwritable:
    return IndexUnwritable(
        f"Cannot open the lock file {path}: {err.strerror or err}. "
        f"{refused_advice(path.parent, err)}."
    )


def refresh_index(
    store: Store,
    roots: Sequence[Root],
    *,
    max_file_bytes: int,
    progress: Progress | None = None,
    workers: int | None = None,
    fast_tier: Callable[[], Embedder | None] | None = None,
    deadline: float | None = None,
) -> RefreshReport:
    """Walk `roots`, re-chunk what changed, drop what is gone. The caller holds the lock.

    With `deadline` (a time.monotonic()), the changed files not yet prepared by then are
    left as the index holds them (`RefreshReport.files_left`), for the next refresh.

    `workers` sizes the process pool that prepares a large batch of changed files
    (see `wherein.index.prepare`); 0 prepares everything in this process.
    `fast_tier` gives the fast tier's model, asked for only when some file changed:
    the changed chunks then get their fast vectors as they are cut, beside the
    chunking, instead of in a second pass over the index.
    """
    started = time.monotonic()
    report = RefreshReport()
    walk = WalkReport()
    known = store.file_states()
    seen: set[str] = set()
    entries: list[FileEntry] = []
    for root in roots:
        entries.extend(walk_root(root, max_file_bytes, walk))
    walked = [(str(entry.path), entry.size, entry.mtime_ns) for entry in entries]
    report.stamp = TreeStamp.of(walk.watched + walked)
    report.skipped["too_large"] += walk.too_large
    report.skipped["symlink"] += walk.symlinks
    report.unreadable.extend(walk.unreadable)
    report.passing_unreadable += walk.passing_unreadable
    report.refused.extend(walk.refused)
    report.notices.extend(walk.warnings)

    changed = 0
    last_commit = time.monotonic()
    batch: list[FileWrite | Callable] = []

    def flush() -> None:
        nonlocal batch, last_commit
        if batch:
            with store.transaction() as conn:
                store.write_files(conn, [w for w in batch if isinstance(w, FileWrite)])
                for touch in batch:
                    if not isinstance(touch, FileWrite):
                        touch(conn)
                store.bump_generation(conn)
            batch = []
        last_commit = time.monotonic()

    stale: list[FileEntry] = []
    for entry in entries:
        state = known.get(entry.display_path)
        if state is not None and state.size == entry.size and state.mtime_ns == entry.mtime_ns:
            seen.add(entry.display_path)
        else:
            stale.append(entry)
    done = len(entries) - len(stale)
    if progress and done:
        progress("scan", done, len(entries))
    if stale:
        # Imported here: a walk that finds nothing changed needs no chunker, grammars or pool.
        from wherein.index.prepare import prepare_files

        fast = fast_tier() if fast_tier is not None else None
        if fast is not None:
            check_identity(store, fast, FAST)
        pieces = _QueryPieces(store, fast)
        commit_every = max(COMMIT_MIN_FILES, min(COMMIT_EVERY_FILES, len(stale) // 8))
        prepared = prepare_files(
            stale,
            max_file_bytes=max_file_bytes,
            known_sha256={path: state.sha256 for path, state in known.items()},
            workers=workers,
            fast=fast,
            learned=pieces.keep if pieces.wanted else None,
        )
        processed: set[str] = set()
        with contextlib.closing(prepared), contextlib.closing(pieces):
            for item in prepared:
                processed.add(item.entry.display_path)
                write = _writer(store, item, known.get(item.entry.display_path), report)
                if write is not None:
                    seen.add(item.entry.display_path)
                    batch.append(write)
                    changed += 1
                waited = time.monotonic() - last_commit
                if len(batch) >= commit_every or waited > COMMIT_EVERY_S:
                    flush()
                    pieces.write()
                done += 1
                if progress:
                    progress("scan", done, len(entries))
                if deadline is not None and time.monotonic() >= deadline:
                    break  # closing `prepared` drops the queued tasks
        left = [e.display_path for e in stale if e.display_path not in processed]
        seen.update(left)  # not read: neither changed in the index nor gone from it
        report.files_left = len(left)
    flush()

    gone = [state.id for path, state in known.items() if path not in seen]
    if gone:
        with store.transaction() as conn:
            store.delete_files(conn, gone)
            store.bump_generation(conn)
    report.files_seen = len(entries)
    report.files_changed = changed
    report.files_deleted = len(gone)
    report.seconds = time.monotonic() - started
    if len(report.refused) > MAX_UNREADABLE_KEPT:
        report.passing_unreadable += 1  # too many to try again at each check: walk instead
    if report.files_left or report.passing_unreadable:
        # The tree is not what the index holds, or may change with no change a stamp sees:
        # no stamp, so the next search walks again.
        report.stamp = None
    elif report.unreadable:
        report.stamp = report.stamp.with_unreadable(report.unreadable, report.refused)
    return report


class _QueryPieces:
    """Where indexing leaves the query pieces its fast model learns (the static model does).

    They go beside the index (`wherein.index.query_vectors`), for fresh searches, written
    when the index commits (`write`): a write each worker task, into a table keyed by the
    piece, took 2 of this process's 10 s under a profiler on the standard library's 289
    tasks, CPU the workers needed.
    """

    def __init__(self, store: Store, fast: Embedder | None) -> None:
        self._kept = None
        self._held: dict[str, list[int]] = {}
        # Both workers learn the common pieces: of the 117,000 they handed over on the
        # standard library 90,000 were distinct, and 17,000 were written again at a later
        # commit (7 us a row).
        self._written: set[str] = set()
        if fast is not None and hasattr(fast, "take_learned_pieces"):
            from wherein.index.query_vectors import QueryVectors

            self._kept = QueryVectors(Path(store.path).parent)
            self._identity = fast.identity

    @property
    def wanted(self) -> bool:
        return self._kept is not None

    def keep(self, pieces: dict[str, list[int]]) -> None:
        if self._kept is not None:
            written = self._written
            self._held.update((p, ids) for p, ids in pieces.items() if p not in written)

    def write(self) -> None:
        if self._kept is not None and self._held:
            self._kept.keep_pieces(self._identity, self._held)
            self._written.update(self._held)
            self._held = {}

    def close(self) -> None:
        if self._kept is not None:
            self.write()
            self._kept.close()


def _writer(
    store: Store, item: PreparedFile, state, report: RefreshReport
) -> FileWrite | Callable | None:
    """What to write for one prepared file (its record, or a function that refreshes its
    stat), or None when it is to be dropped."""
    entry = item.entry
    if item.outcome == "vanished":
        return None
    if item.outcome == "unreadable":
        note_unreadable(report, entry.display_path, item.why, str(entry.path))
        return None
    if item.outcome == "unchanged":
        return lambda conn: store.touch_file(conn, state.id, item.size, item.mtime_ns)
    if item.skipped:
        report.skipped[item.skipped] += 1
    report.chunks_written += len(item.chunks)

    return FileWrite(
        path=entry.display_path,
        root=str(entry.root.path),
        fs_path=os.fsencode(entry.path),
        size=item.size,
        mtime_ns=item.mtime_ns,
        sha256=item.sha256,
        language=item.language,
        skipped=item.skipped,
        chunks=item.chunks,
    )


def walk_key(roots: Sequence[Root], max_file_bytes: int) -> str:
    """What a walk depends on besides the disk: which roots, and the size limit."""
    walked = [(r.label, str(r.path), *(() if r.files is None else (r.files,))) for r in roots]
    return repr((walked, max_file_bytes))


def refresh_when_changed(
    store: Store,
    roots: Sequence[Root],
    *,
    max_file_bytes: int,
    fast_tier: Callable[[], Embedder | None] | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
) -> tuple[RefreshReport | None, TreeStamp | None]:
    """`refresh_index`, unless the last walk's stamp shows nothing changed (report None).

    Returns the report and the stamp that now describes the tree.

    The stamp is the one the last refresh saved beside the index, used only if it was
    taken at the index's current state; a refresh saves its own for the next process.
    The caller holds the lock.
    """
    key = walk_key(roots, max_file_bytes)
    generation = store.get_meta("generation") or "0"
    stamp = load_stamp(store.path.parent, key, generation)
    if stamp is not None and stamp.unchanged():
        return None, stamp
    report = refresh_index(
        store,
        roots,
        max_file_bytes=max_file_bytes,
        fast_tier=fast_tier,
        deadline=deadline,
        progress=progress,
    )
    remember_stamp(store, roots, max_file_bytes, report)
    return report, report.stamp


def remember_stamp(
    store: Store, roots: Sequence[Root], max_file_bytes: int, report: RefreshReport
) -> None:
    """Save a refresh's stamp beside the index, at the index state the refresh left; when
    it kept none (`refresh_index` says why), drop the last one, so each search walks again.
    """
    if report.stamp is None:
        stale = store.path.parent / STAMP_FILE_NAME
        if not_regular(stale) is None:  # a folder or link there is not ours to delete
            with contextlib.suppress(OSError):
                stale.unlink()
        return
    generation = store.get_meta("generation") or "0"
    said: list[str] = []
    save_stamp(store.path.parent, walk_key(roots, max_file_bytes), generation, report.stamp, said)
    for line in said:
        store.say(line)


def embed_pending(
    store: Store,
    embedder: Embedder,
    *,
    budget_s: float | None,
    paths_first: Sequence[str] = (),
    progress: Progress | None = None,
    tier: VectorTier = FULL,
    batch: int = EMBED_BATCH,
) -> int:
    """Embed chunks without a `tier` vector until done or `budget_s` runs out; returns how many."""
    started = time.monotonic()
    check_identity(store, embedder, tier)
    total = store.pending_count(tier)[1]
    done = 0
    while budget_s is None or time.monotonic() - started < budget_s:
        pending = store.pending_texts(batch, paths_first, tier)
        if not pending:
            break
        vectors = embedder.embed([text for _, text in pending])
        with store.transaction() as conn:
            items = list(zip([h for h, _ in pending], vectors, strict=True))
            store.put_vectors(conn, items, tier)
        done += len(pending)
        if progress:
            progress(STAGE_OF_TIER[tier.name], done, max(total, done))
    return done


def check_identity(store: Store, embedder: Embedder, tier: VectorTier = FULL) -> None:
    """Discard vectors from a different embedder instead of mixing two vector spaces."""
    wanted = embedder.identity.key()
    current = store.get_meta(tier.meta_key)
    if current == wanted:
        return
    with store.transaction() as conn:
        if current is not None:
            count = conn.execute(f"SELECT count(*) FROM {tier.table}").fetchone()[0]
            store.clear_vectors(conn, tier)
            store.say(
                f"The embedder changed from {current} to {wanted}: discarded {count} vectors; "
                "they are re-embedded now."
            )
        store.set_meta(conn, tier.meta_key, wanted)


def open_workspace_store(workspace: Path) -> Store:
    return open_store(index_dir(workspace) / INDEX_FILE_NAME)
