"""The derived vector cache: used when it matches the index, rebuilt when it does not."""

from __future__ import annotations

import mmap

import numpy as np

from tests.helpers import HashingEmbedder, write_tree
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import embed_pending, refresh_index
from wherein.index.store import open_store
from wherein.index.tiers import FAST, FULL
from wherein.workspace import Root

LIMIT = 1 << 20


def _mapped(array: np.ndarray) -> bool:
    """Whether `array`'s memory is a mapped file's pages."""
    while isinstance(array, np.ndarray):
        array = array.base
    return isinstance(array, memoryview) and isinstance(array.obj, mmap.mmap)


def _store(tmp_path):
    repo = write_tree(
        tmp_path / "repo", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)}
    )
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    return repo, store


def test_vectors_are_cached_and_the_cache_matches_sqlite(tmp_path):
    _, store = _store(tmp_path)
    ids, matrix = store.vectors()
    assert len(_cache_files(store, "full")) == 2
    again_ids, again = store.vectors()
    assert _mapped(again)  # mapped, not decoded
    assert type(again) is np.ndarray  # not np.memmap, whose indexing runs Python code
    direct_ids, direct = store._read_vectors(FULL)
    np.testing.assert_array_equal(again_ids, direct_ids)
    np.testing.assert_array_equal(again, direct)
    assert len(ids) == 5


def test_new_vectors_and_new_files_rebuild_the_cache(tmp_path):
    repo, store = _store(tmp_path)
    before, _ = store.vectors()
    (repo / "extra.py").write_text("def extra():\n    return 9\n")
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    after, _ = store.vectors()
    assert len(after) == len(before) + 1


def test_a_damaged_cache_is_ignored(tmp_path):
    _, store = _store(tmp_path)
    store.vectors()
    for path in _cache_files(store, "full"):
        path.write_bytes(b"not a numpy file")
    ids, _ = store.vectors()
    assert len(ids) == 5


def test_a_truncated_matrix_file_is_ignored(tmp_path):
    _, store = _store(tmp_path)
    store.vectors()
    matrix_file = next(p for p in _cache_files(store, "full") if p.name.endswith(".matrix.npy"))
    matrix_file.write_bytes(matrix_file.read_bytes()[:-40])
    ids, matrix = store.vectors()
    assert len(ids) == 5 and matrix.shape[0] == 5


def test_each_tier_has_its_own_cache_and_old_caches_are_removed(tmp_path):
    repo, store = _store(tmp_path)
    embed_pending(store, HashingEmbedder(dimension=8), budget_s=None, tier=FAST)
    store.vectors(tier=FAST)
    store.vectors()
    assert len(_cache_files(store, "fast")) == 2 and len(_cache_files(store, "full")) == 2
    first = set(_cache_files(store, "full"))
    (repo / "extra.py").write_text("def extra():\n    return 9\n")
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    store.vectors()
    assert len(_cache_files(store, "full")) == 2 and not first & set(_cache_files(store, "full"))
    _, fast = store.vectors(tier=FAST)
    assert fast.shape[1] == 8  # never the other tier's vectors


def _cache_files(store, tier: str):
    return sorted(store.path.parent.glob(f"vectors-{tier}-*.npy"))


def test_a_rebuilt_index_never_reads_the_cache_its_predecessor_left(tmp_path):
    # A new file's counters start again where the lost one's did, so a cache named by them
    # alone was read again after `rm index.db` (or a damaged file moved aside): the old
    # text's vectors, ranked for chunks whose text had changed, until something else changed.
    repo, store = _store(tmp_path)
    store.vectors()
    path = store.path
    store.close()
    for name in (INDEX_FILE_NAME, f"{INDEX_FILE_NAME}-wal", f"{INDEX_FILE_NAME}-shm"):
        (path.parent / name).unlink(missing_ok=True)
    (repo / "m2.py").write_text("def renamed():\n    return 'a different text'\n")
    store = open_store(path)
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)
    ids, matrix = store.vectors()
    direct_ids, direct = store._read_vectors(FULL)
    np.testing.assert_array_equal(ids, direct_ids)
    np.testing.assert_array_equal(matrix, direct)
