"""A tier's best rows from a 4-bit shortlist: the same rows and similarities as every row's
exact sums, for a plain matrix and for rows stacked after a change; the copy's products are
the packed values' as onnxruntime reads them."""

from __future__ import annotations

import logging
import sys

import numpy as np
import pytest

from wherein.errors import EmbedderError
from wherein.ranking import quantized_rows
from wherein.ranking.quantized_rows import (
    BLOCK_VALUES,
    SHORTLIST_PER_RESULT,
    STEPS,
    ZERO_POINT,
    QuantizedRows,
    best_rows,
    can_quantize,
    quantize_rows,
)
from wherein.ranking.vector import EINSUM_MIN_ROWS, StackedRows, similarities
from wherein.retrieval.selection import top_k


def _unit_rows(rng: np.random.Generator, count: int, width: int) -> np.ndarray:
    """Rows around a few dozen topics, as chunk vectors are: neighbours are close, not tied."""
    topics = rng.standard_normal((40, width))
    rows = topics[rng.integers(len(topics), size=count)] + 0.6 * rng.standard_normal((count, width))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _exact(query: np.ndarray, matrix, n: int) -> tuple[np.ndarray, np.ndarray]:
    sims = similarities(query, matrix)
    picked = top_k(sims, n)
    return picked, sims[picked]


def _unpacked(packed: np.ndarray, scales: np.ndarray, width: int) -> np.ndarray:
    """The values the packed bytes stand for: the low four bits first, less the zero point,
    times the block's scale."""
    steps = np.empty((*packed.shape[:2], BLOCK_VALUES), dtype=np.float32)
    steps[..., 0::2] = (packed & 0x0F).astype(np.float32) - ZERO_POINT
    steps[..., 1::2] = (packed >> 4).astype(np.float32) - ZERO_POINT
    return (steps * scales[..., None]).reshape(len(packed), -1)[:, :width]


@pytest.fixture(scope="module")
def base() -> np.ndarray:
    return _unit_rows(np.random.default_rng(3), EINSUM_MIN_ROWS + 3000, 64)


def test_each_value_is_packed_to_within_half_a_step_of_its_block_scale():
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((50, 72)).astype(np.float32)  # 72: the last block is padded
    rows[3, :32] = 0.0  # a block of zeros keeps a scale of zero
    packed, scales = quantized_rows._packed(rows, 3)
    assert packed.dtype == np.uint8 and packed.shape == (50, 3, BLOCK_VALUES // 2)
    blocks = np.zeros((50, 96), dtype=np.float32)
    blocks[:, :72] = rows
    largest = np.abs(blocks.reshape(50, 3, BLOCK_VALUES)).max(axis=2)
    assert np.allclose(scales, largest / STEPS) and scales[3, 0] == 0
    error = np.abs(_unpacked(packed, scales, 72) - rows)
    assert (error <= np.repeat(scales, BLOCK_VALUES, axis=1)[:, :72] / 2 + 1e-6).all()


def test_the_products_are_the_packed_values_as_onnxruntime_reads_them(base):
    """A layout read wrongly (the nibbles swapped, a block's scale misplaced) gives products
    far from these; onnxruntime's own rounding of the query to int8 stays within 1%."""
    made = quantize_rows(base)
    packed, scales = quantized_rows._packed(base, 2)
    values = _unpacked(packed, scales, base.shape[1])
    rng = np.random.default_rng(4)
    for row in rng.integers(len(base), size=5):
        products = made.products(base[row])
        expected = values @ base[row]
        assert products.shape == (len(base),)
        assert np.abs(products - expected).max() <= 0.01 * np.abs(expected).max()


def test_rows_holding_nan_or_infinity_are_refused(base):
    for bad in (np.nan, np.inf, -np.inf):
        rows = base.copy()
        rows[EINSUM_MIN_ROWS + 7, 3] = bad
        with pytest.raises(ValueError, match="not a finite number"):
            quantize_rows(rows)


def test_only_a_large_float32_matrix_is_worth_a_copy(base):
    assert can_quantize(base) and not can_quantize(base[: EINSUM_MIN_ROWS - 1])
    assert not can_quantize(base.astype(np.float64)) and not can_quantize(base[0])


def test_the_shortlist_ranks_as_every_row_does(base):
    rng = np.random.default_rng(8)
    made = quantize_rows(base)
    for row in rng.integers(len(base), size=20):
        query = base[row] + 0.3 * rng.standard_normal(base.shape[1]).astype(np.float32)
        query /= np.linalg.norm(query)
        positions, sims = best_rows(query, base, 100, made)
        expected_positions, expected_sims = _exact(query, base, 100)
        assert np.array_equal(positions, expected_positions)
        assert np.array_equal(sims, expected_sims)  # the same float32 sums, to the bit


def test_stacked_rows_are_ranked_in_their_own_order(base):
    """Dead base rows never come back; rows added since are all summed; positions count
    the live base rows first, then the added ones."""
    rng = np.random.default_rng(12)
    made = quantize_rows(base)
    alive = rng.random(len(base)) > 0.2
    added = _unit_rows(rng, 300, base.shape[1])
    for stacked in (StackedRows(base, alive, added), StackedRows(base, None, added)):
        whole = stacked[np.ones(len(stacked), dtype=bool)]
        for row in rng.integers(len(whole), size=10):
            query = whole[row]  # some queries are an added row itself: it must come first
            positions, sims = best_rows(query, stacked, 50, made)
            expected_positions, expected_sims = _exact(query, whole, 50)
            assert positions[0] == row
            assert np.array_equal(positions, expected_positions)
            assert np.array_equal(sims, expected_sims)


def test_equal_rows_keep_the_earlier_first_as_top_k_does(base):
    copies = np.concatenate([base[:EINSUM_MIN_ROWS], np.repeat(base[5:6], 30, axis=0)])
    positions, _ = best_rows(base[5], copies, 10, quantize_rows(copies))
    assert positions.tolist() == [5, *range(EINSUM_MIN_ROWS, EINSUM_MIN_ROWS + 9)]


def test_without_a_copy_of_these_rows_every_row_is_summed(base):
    other = QuantizedRows(base.copy(), quantize_rows(base).session)  # a copy of other rows
    query = base[9]
    expected = _exact(query, base, 20)
    for quantized in (None, other):
        positions, sims = best_rows(query, base, 20, quantized)
        assert np.array_equal(positions, expected[0]) and np.array_equal(sims, expected[1])
    few = base[: SHORTLIST_PER_RESULT * 20]  # no more rows than the shortlist: all summed
    positions, _ = best_rows(query, few, 20, quantize_rows(base))
    assert np.array_equal(positions, _exact(query, few, 20)[0])


def test_a_query_of_another_width_is_refused_with_a_copy_too(base):
    with pytest.raises(EmbedderError, match="Run 'wherein index'"):
        best_rows(np.ones(8, dtype=np.float32), base, 10, quantize_rows(base))


def test_without_onnxruntime_or_onnx_no_copy_is_made_and_the_log_says_so(base, monkeypatch, caplog):
    """A broken install costs the shortlist, not the search: the resident sums every row."""
    caplog.set_level(logging.WARNING)
    try:
        with monkeypatch.context() as patched:
            patched.setitem(sys.modules, "onnxruntime", None)  # its import now fails
            quantized_rows._onnxruntime.cache_clear()
            with pytest.raises(RuntimeError, match="onnxruntime cannot be imported"):
                quantize_rows(base)
            assert "onnxruntime cannot be imported" in caplog.text
        quantized_rows._onnxruntime.cache_clear()
        with monkeypatch.context() as patched:
            patched.setitem(sys.modules, "onnx", None)  # the graph cannot be written
            with pytest.raises(RuntimeError, match="onnx cannot be imported"):
                quantize_rows(base)
    finally:
        quantized_rows._onnxruntime.cache_clear()
    assert quantize_rows(base).products(base[0]).shape == (len(base),)


def test_products_that_fail_cost_the_shortlist_not_the_search(base, caplog):
    """onnxruntime refusing a run in a search (here a real session made for rows of another
    width, which rejects the query): every row is summed, and the log says why."""
    narrow = quantize_rows(_unit_rows(np.random.default_rng(6), EINSUM_MIN_ROWS, 32))
    quantized_rows._warn_once.cache_clear()
    caplog.set_level(logging.WARNING)
    positions, sims = best_rows(base[4], base, 20, QuantizedRows(base, narrow.session))
    expected = _exact(base[4], base, 20)
    assert np.array_equal(positions, expected[0]) and np.array_equal(sims, expected[1])
    assert caplog.text.count("The 4-bit products failed") == 1
    best_rows(base[5], base, 20, QuantizedRows(base, narrow.session))
    assert caplog.text.count("The 4-bit products failed") == 1  # said once
