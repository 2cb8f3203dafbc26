"""A resident search's vectors after a change: read again only where chunks are new, and
always what a fresh read of the tier gives, row for row and sum for sum."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import HashingEmbedder, write_tree
from wherein.index import vector_tables
from wherein.index.refresh import embed_pending, refresh_index
from wherein.index.store import Store, open_store
from wherein.index.tiers import FULL
from wherein.index.vector_tables import HeldVectors, VectorTables
from wherein.ranking import vector
from wherein.ranking.vector import StackedRows, similarities
from wherein.workspace import Root

LIMIT = 1_048_576


def _module(n: int, body: str = "") -> str:
    return "".join(
        f"def handler_{n}_{k}(request):\n    '''Answer request {n}.{k}.{body}'''\n"
        + "".join(f"    step_{j} = request.call({n}, {k}, {j})\n" for j in range(12))
        + "    return step_0\n\n\n"
        for k in range(3)
    )


@pytest.fixture
def repo(tmp_path) -> Path:
    return write_tree(tmp_path / "repo", {f"pkg/mod{n:02}.py": _module(n) for n in range(12)})


@pytest.fixture
def store(tmp_path, repo, monkeypatch):
    # Stacking is for matrices einsum reads; let these small ones be read so too.
    monkeypatch.setattr(vector, "EINSUM_MIN_ROWS", 4)
    monkeypatch.setattr(vector_tables, "STACKED_SHARE", 1.0)
    opened = open_store(tmp_path / "home" / "index.db")
    _refresh(opened, repo)
    yield opened
    opened.close()


def _refresh(store: Store, repo: Path) -> None:
    refresh_index(store, [Root(repo)], max_file_bytes=LIMIT)
    embed_pending(store, HashingEmbedder(), budget_s=None)


def _rows(held: HeldVectors) -> np.ndarray:
    matrix = held.matrix
    return matrix[np.ones(len(matrix), dtype=bool)] if isinstance(matrix, StackedRows) else matrix


def _assert_as_read_whole(store: Store, held: HeldVectors) -> None:
    ids, matrix = store.vectors(tier=FULL)
    assert np.array_equal(held.ids, ids)
    assert np.array_equal(_rows(held), matrix)
    rng = np.random.default_rng(3)
    for _ in range(3):
        query = rng.standard_normal(matrix.shape[1]).astype(np.float32)
        query /= np.linalg.norm(query)
        assert np.array_equal(similarities(query, held.matrix), similarities(query, matrix))


def _whole(*args, **kwargs):
    raise AssertionError("the whole tier was read again")


def test_after_edits_only_the_new_chunks_vectors_are_read(store, repo, monkeypatch):
    held = store.held_vectors(FULL)
    _assert_as_read_whole(store, held)
    # The last file written: SQLite would give its new chunks the ids its old ones had.
    (repo / "pkg/mod11.py").write_text(_module(11, " Edited."))
    _refresh(store, repo)
    with monkeypatch.context() as patch:
        patch.setattr(VectorTables, "_read_vectors", _whole)
        edited = store.held_vectors(FULL, held)
    assert isinstance(edited.matrix, StackedRows)
    assert edited.matrix.base is held.matrix  # the rows read before, not a copy of them
    assert min(set(edited.ids) - set(held.ids)) > max(held.ids)  # no id given twice
    _assert_as_read_whole(store, edited)
    (repo / "pkg/mod03.py").unlink()
    (repo / "pkg/mod20.py").write_text(_module(20))
    (repo / "pkg/mod11.py").write_text(_module(11, " Edited again."))
    _refresh(store, repo)
    with monkeypatch.context() as patch:
        patch.setattr(VectorTables, "_read_vectors", _whole)
        again = store.held_vectors(FULL, edited)
    assert isinstance(again.matrix, StackedRows) and again.matrix.base is held.matrix
    _assert_as_read_whole(store, again)
    assert store.held_vectors(FULL, again) is again  # nothing changed: kept as it is


def test_too_many_changes_compact_the_held_rows_into_one_matrix(store, repo, monkeypatch):
    monkeypatch.setattr(vector_tables, "STACKED_SHARE", 0.1)
    held = store.held_vectors(FULL)
    for n in range(6):
        (repo / f"pkg/mod{n:02}.py").write_text(_module(n, " Rewritten."))
    _refresh(store, repo)
    with monkeypatch.context() as patch:
        patch.setattr(VectorTables, "_read_vectors", _whole)
        compacted = store.held_vectors(FULL, held)
    assert isinstance(compacted.matrix, np.ndarray)
    _assert_as_read_whole(store, compacted)


def test_vectors_filled_in_among_the_old_ones_are_merged_in_id_order(store):
    even = "SELECT text_hash FROM chunks WHERE id % 2 = 0"
    with store.transaction() as conn:
        conn.execute(f"DELETE FROM {FULL.table} WHERE text_hash IN ({even})")
        conn.execute(f"UPDATE chunks SET {FULL.flag} = 0 WHERE id % 2 = 0")
        store._bump_vectors_version(conn, FULL)
    half = store.held_vectors(FULL)
    assert len(half.ids) == store.chunk_count() // 2
    embed_pending(store, HashingEmbedder(), budget_s=None)  # the even ids, among the odd
    whole = store.held_vectors(FULL, half)
    assert len(whole.ids) == store.chunk_count() and isinstance(whole.matrix, np.ndarray)
    _assert_as_read_whole(store, whole)


def test_vectors_of_a_cleared_tier_are_never_reused(store, repo):
    held = store.held_vectors(FULL)
    with store.transaction() as conn:
        store.clear_vectors(conn, FULL)
    embed_pending(store, HashingEmbedder(dimension=24), budget_s=None)  # another model
    refilled = store.held_vectors(FULL, held)
    assert refilled.matrix.shape[1] == 24
    _assert_as_read_whole(store, refilled)


def test_a_small_tier_is_held_as_one_matrix(store, repo, monkeypatch):
    monkeypatch.setattr(vector, "EINSUM_MIN_ROWS", 8192)  # by BLAS: its sums may not split
    held = store.held_vectors(FULL)
    (repo / "pkg/mod11.py").write_text(_module(11, " Edited."))
    _refresh(store, repo)
    edited = store.held_vectors(FULL, held)
    assert isinstance(edited.matrix, np.ndarray)
    _assert_as_read_whole(store, edited)


def test_a_write_between_the_reads_means_the_whole_tier_is_read_again(store, repo, monkeypatch):
    """Another process may commit while the held rows are brought up to date: what is held
    must then be one state's, not a mix of two."""
    held = store.held_vectors(FULL)
    (repo / "pkg/mod11.py").write_text(_module(11, " Edited."))
    _refresh(store, repo)
    real = VectorTables._vectors_since
    raced: list[bool] = []

    def with_a_writer_meanwhile(self, tier, previous, version, epoch):
        updated = real(self, tier, previous, version, epoch)
        if not raced:
            raced.append(True)
            (repo / "pkg/mod05.py").write_text(_module(5, " Raced."))
            _refresh(store, repo)
        return updated

    with monkeypatch.context() as patch:
        patch.setattr(VectorTables, "_vectors_since", with_a_writer_meanwhile)
        after = store.held_vectors(FULL, held)
    assert raced
    _assert_as_read_whole(store, after)  # the later state, read whole
    _assert_as_read_whole(store, store.held_vectors(FULL, after))
