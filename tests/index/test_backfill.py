"""The background fill of the configured model's tier: batch by batch, never holding the index."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.helpers import HashingEmbedder, write_tree
from wherein.errors import EmbedderError
from wherein.index.backfill import backfill_full_tier
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import EMBED_BATCH, index_lock, refresh_index
from wherein.index.store import open_store
from wherein.workspace import Root

FILES = {f"pkg/m{i}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(150)}


@pytest.fixture
def repo(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0)
    store.close()
    return repo


def _pending(repo) -> int:
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    try:
        return store.pending_count()[1]
    finally:
        store.close()


class _FailingAfter(HashingEmbedder):
    """Answers `good` calls, then fails as a model that lost its file would."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good

    def embed(self, texts):
        if self.calls >= self.good:
            raise EmbedderError("The model stopped answering (a test).")
        return super().embed(texts)


class _LockProbe(HashingEmbedder):
    """Records, during each embed call, whether another process could take the index lock."""

    def __init__(self, directory) -> None:
        super().__init__()
        self.directory = directory
        self.free_while_embedding: list[bool] = []

    def embed(self, texts):
        with index_lock(self.directory, wait=False) as locked:
            self.free_while_embedding.append(locked)
        return super().embed(texts)


def test_the_fill_embeds_every_pending_chunk(repo):
    assert _pending(repo) == 150
    done = backfill_full_tier(repo, HashingEmbedder(), threading.Event())
    assert done == 150 and _pending(repo) == 0
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    ids, matrix = store.vectors()
    assert len(ids) == 150 and np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    store.close()


def test_the_model_runs_without_the_index_lock(repo):
    probe = _LockProbe(index_dir(repo))
    backfill_full_tier(repo, probe, threading.Event())
    assert probe.free_while_embedding and all(probe.free_while_embedding)


def test_a_failing_model_keeps_the_batches_written_before_it(repo):
    with pytest.raises(EmbedderError):
        backfill_full_tier(repo, _FailingAfter(good=1), threading.Event())
    assert _pending(repo) == 150 - EMBED_BATCH


def test_a_stop_request_ends_the_fill_at_a_batch_boundary(repo):
    stop = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        stop.set()

    done = backfill_full_tier(repo, HashingEmbedder(), stop, progress=progress)
    assert done == EMBED_BATCH == seen[-1]
    assert _pending(repo) == 150 - EMBED_BATCH


def test_a_folder_in_place_of_the_index_is_moved_aside_and_logged(repo, caplog):
    path = index_dir(repo) / INDEX_FILE_NAME
    path.unlink()
    path.mkdir()
    (path / "keep.txt").write_text("mine")
    with caplog.at_level("WARNING", logger="wherein.index.backfill"):
        done = backfill_full_tier(repo, HashingEmbedder(), threading.Event())
    assert done == 0  # a new, empty index: nothing to fill until a refresh finds the files
    (aside,) = path.parent.glob("index.db.broken-*")
    assert (aside / "keep.txt").read_text() == "mine"
    (record,) = caplog.records
    assert record.getMessage() == (
        f"The index at {path} was unreadable (index.db is a folder, not a regular file); "
        f"moved it to {aside} and started a new one."
    )


class _ForgetsFirst(HashingEmbedder):
    """`wherein forget` while the first batch is embedded, between its read and its write."""

    def __init__(self, repo) -> None:
        super().__init__()
        self.repo = repo

    def embed(self, texts):
        if self.calls == 0:
            from wherein.index.removal import remove_index
            from wherein.storage.paths import data_home

            assert remove_index(index_dir(self.repo), data_home()).removed
        return super().embed(texts)


def test_a_fill_whose_index_was_forgotten_stops_and_makes_none_again(repo):
    """Taking the lock made the folder again, and opening it an empty index that no
    workspace record names (`wherein gc` never removes such a folder)."""
    embedder = _ForgetsFirst(repo)
    assert backfill_full_tier(repo, embedder, threading.Event()) == 0
    assert embedder.calls == 1
    assert not index_dir(repo).exists()


class _ForgetsWhileItWaits(HashingEmbedder):
    """`wherein forget` takes the index lock just after the first batch is embedded, and
    removes the folder while the fill waits for the lock to write that batch."""

    def __init__(self, directory) -> None:
        super().__init__()
        self.directory = directory
        self.forgetting: threading.Thread | None = None

    def embed(self, texts):
        vectors = super().embed(texts)
        if self.calls == 1:
            taken = threading.Event()
            self.forgetting = threading.Thread(target=self._forget, args=(taken,))
            self.forgetting.start()
            taken.wait()
        return vectors

    def _forget(self, taken: threading.Event) -> None:
        import os
        import shutil

        with index_lock(self.directory, wait=False) as locked:  # as remove_index holds it
            assert locked
            taken.set()
            time.sleep(0.5)  # removing a large index takes a while
            doomed = self.directory.parent / f".{self.directory.name}.removing"
            os.rename(self.directory, doomed)
            shutil.rmtree(doomed)


def test_a_fill_waiting_for_the_lock_that_forget_holds_does_not_make_the_folder_again(repo):
    embedder = _ForgetsWhileItWaits(index_dir(repo))
    assert backfill_full_tier(repo, embedder, threading.Event()) == 0
    embedder.forgetting.join()
    assert not index_dir(repo).exists()
