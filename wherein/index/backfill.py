"""Fill the configured model's tier behind a live session, never holding the index for long.

`wherein index` holds the write lock while it embeds, which is right for a command
someone waits on. A server that fills the slow tier in the background must not:
every search refreshes the index first and would find it locked for minutes. So the
lock is taken only to read a batch of pending texts and again to write its vectors;
the model runs between, unlocked. A chunk that changed meanwhile is harmless: its
vector is keyed by the hash of the text embedded, lands on no chunk, and is dropped
with the other orphans by the next `wherein index`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from wherein.embedding.base import Embedder
from wherein.index.location import INDEX_FILE_NAME, file_identity, index_dir
from wherein.index.refresh import EMBED_BATCH, check_identity, index_lock
from wherein.index.store import Store, open_store
from wherein.index.tiers import FULL

__all__ = ["backfill_full_tier"]

# How often a waiting backfill looks at the lock again, and whether it was asked to stop.
LOCK_POLL_S = 0.2

logger = logging.getLogger(__name__)


def backfill_full_tier(
    workspace: Path,
    embedder: Embedder,
    stop: threading.Event,
    progress: Callable[[int, int], None] | None = None,
    guard: threading.Lock | None = None,
) -> int:
    """Embed every chunk that lacks a vector of the configured model; returns how many.

    Stops at the next batch boundary once `stop` is set. `guard` is a lock the caller's
    searches hold while they run: taken with the index lock, it makes a search wait the
    few milliseconds of a batch read or write instead of finding the index busy.

    Raises:
        EmbedderError: the model failed; what was written stays.
        IndexUnwritable: the index cannot be written (a full disk); what was written stays.
    """
    directory = index_dir(workspace)
    path = directory / INDEX_FILE_NAME
    # The index it starts on: once that is removed (`wherein forget`) or replaced, each batch
    # finds so under the lock and the fill stops, where taking the lock made its folder again
    # and opening it an empty index no workspace record names, which `wherein gc` never removes.
    started_on = file_identity(path)
    if started_on is None:
        return 0
    done = 0
    while not stop.is_set():
        read = functools.partial(_read_batch, path, embedder, started_on)
        pending = _locked(directory, stop, guard, read)
        if not pending:
            return done
        vectors = embedder.embed([text for _, text in pending])
        items = list(zip([h for h, _ in pending], vectors, strict=True))
        write = functools.partial(_write_batch, path, items, started_on)
        if not _locked(directory, stop, guard, write):
            return done
        done += len(items)
        if progress is not None:
            progress(done, done + _pending(path))
    return done


def _locked(directory: Path, stop: threading.Event, guard: threading.Lock | None, work: Callable):
    """Run `work` under the write lock, polling so a stop request is heard; None if stopped
    or the index folder is gone (the lock never makes it again: `wherein forget` may have
    removed it while this waited)."""
    held = guard if guard is not None else contextlib.nullcontext()
    while not stop.is_set():
        with held, index_lock(directory, wait=False, create=False) as locked:
            if locked is None:
                return None
            if locked:
                return work()
        time.sleep(LOCK_POLL_S)
    return None


def _open(path: Path) -> Store:
    """The store; what opening it mended goes to the log (no one waits on a background fill)."""
    store = open_store(path)
    if store.notice:
        logger.warning(store.notice)
        store.notice = None
    return store


def _read_batch(path: Path, embedder: Embedder, started_on) -> list[tuple[str, str]]:
    if file_identity(path) != started_on:  # checked under the lock: forget holds it too
        return []
    with contextlib.closing(_open(path)) as store:
        check_identity(store, embedder, FULL)
        return store.pending_texts(EMBED_BATCH, tier=FULL)


def _write_batch(path: Path, items, started_on) -> bool:
    if file_identity(path) != started_on:
        return False
    with contextlib.closing(_open(path)) as store, store.transaction() as conn:
        store.put_vectors(conn, items, FULL)
    return True


def _pending(path: Path) -> int:
    with contextlib.closing(_open(path)) as store:
        return store.pending_count(FULL)[1]
