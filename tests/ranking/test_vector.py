"""Query similarities: cosine as a dot product, by one BLAS thread or numpy's einsum, the
process's BLAS setting kept."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from wherein.errors import EmbedderError
from wherein.ranking.vector import (
    EINSUM_MIN_ROWS,
    NotUnitRows,
    StackedRows,
    can_stack,
    check_unit_similarities,
    rows_not_unit,
    rows_where,
    similarities,
    zero_rows,
)


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.mark.parametrize("rows", [3000, EINSUM_MIN_ROWS + 5])  # by BLAS, and by einsum
def test_similarities_are_the_dot_products_and_leave_the_thread_setting_alone(rows):
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((rows, 64)).astype(np.float32)
    query = rng.standard_normal(64)  # float64: cast, as a model's output may need
    before = _blas_threads()
    sims = similarities(query, matrix)
    assert _blas_threads() == before
    assert sims.dtype == np.float32 and sims.shape == (rows,)
    np.testing.assert_allclose(sims, matrix.astype(np.float64) @ query, rtol=1e-4, atol=1e-4)
    assert np.array_equal(similarities(query, matrix), sims)  # the same sums every time


def test_a_query_of_another_width_is_refused():
    with pytest.raises(EmbedderError, match="Run 'wherein index'"):
        similarities(np.ones(8, dtype=np.float32), np.ones((2, 4), dtype=np.float32))
    assert similarities(np.ones(8, dtype=np.float32), np.zeros((0, 8))).shape == (0,)


def test_stacked_rows_read_as_the_matrix_they_stand_for():
    """The same sums as the whole matrix, which einsum reads: only so long is it stacked."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal((EINSUM_MIN_ROWS + 2000, 32)).astype(np.float32)
    alive = rng.random(len(base)) > 0.1
    added = rng.standard_normal((25, 32)).astype(np.float32)
    stacked = StackedRows(base, alive, added)
    whole = np.concatenate([base[alive], added])
    assert can_stack(len(whole), whole.dtype)
    assert stacked.shape == whole.shape and len(stacked) == len(whole)
    query = rng.standard_normal(32).astype(np.float32)
    assert np.array_equal(similarities(query, stacked), similarities(query, whole))
    keep = rng.random(len(whole)) > 0.5
    assert np.array_equal(stacked[keep], whole[keep])
    everything = StackedRows(base, None, added[:0])
    assert np.array_equal(similarities(query, everything), similarities(query, base))
    assert can_stack(len(base), base.dtype) and not can_stack(EINSUM_MIN_ROWS - 1, base.dtype)


def test_rows_where_copies_no_row_of_a_large_matrix_and_sums_as_the_copy():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((2 * EINSUM_MIN_ROWS, 16)).astype(np.float32)
    query = rng.standard_normal(16).astype(np.float32)
    keep = rng.random(len(base)) > 0.2
    view = rows_where(base, keep)
    assert isinstance(view, StackedRows) and view.base is base
    assert np.array_equal(similarities(query, view), similarities(query, base[keep]))
    stacked = StackedRows(base, rng.random(len(base)) > 0.1, base[:40] * 2)
    whole = stacked[np.ones(len(stacked), dtype=bool)]
    keep = rng.random(len(whole)) > 0.2
    narrowed = rows_where(stacked, keep)
    assert isinstance(narrowed, StackedRows) and narrowed.base is base
    assert np.array_equal(narrowed[np.ones(len(narrowed), dtype=bool)], whole[keep])
    assert np.array_equal(similarities(query, narrowed), similarities(query, whole[keep]))
    few = np.zeros(len(base), dtype=bool)
    few[:100] = True  # so few rows are read by BLAS, as a fresh search reads its copy
    assert isinstance(rows_where(base, few), np.ndarray)


def test_row_checks_of_a_stacked_matrix_count_its_live_rows_only():
    from wherein.ranking.vector import rows_not_unit, zero_rows

    unit = np.eye(4, dtype=np.float32)
    base = np.stack([unit[0], unit[1] * 3, unit[2], np.zeros(4, np.float32)])  # rows 1, 3 odd
    alive = np.array([False, True, True, True])  # row 0 is dead: positions shift by one
    added = np.stack([unit[3] * 2, np.zeros(4, np.float32)])
    stacked = StackedRows(base, alive, added)
    # Read as one: [3*e1, e2, 0, 2*e3, 0]
    assert rows_not_unit(stacked).tolist() == [0, 3]
    assert zero_rows(stacked).tolist() == [2, 4]


def test_damaged_rows_are_found_without_numpy_warning_on_stderr():
    # Junk in a mapped cache is NaN and 1e38s: said in one sentence by the caller, which a
    # RuntimeWarning with numpy's source line printed ahead of.
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((64, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[5] = np.frombuffer(b"\x01\x00\x80\x7f" * 8, np.float32)  # a signalling NaN
    matrix[9] = np.inf
    matrix[9, ::2] = -np.inf
    query = np.abs(matrix[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sims = similarities(query, matrix)
        assert list(rows_not_unit(matrix)) == [5, 9]
        assert list(zero_rows(matrix)) == []
    with pytest.raises(NotUnitRows):
        check_unit_similarities(sims)
