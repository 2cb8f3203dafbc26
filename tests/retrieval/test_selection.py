"""top_k: the k best positions, best first, earlier rows first among equal scores."""

from __future__ import annotations

import numpy as np
import pytest

from wherein.retrieval.selection import MIN_GROUP, at_or_above_floor, top_k

# The groups dealt for 100 wanted scores, and the fewest scores that are dealt at all.
GROUPS = 256
DEALT = GROUPS * MIN_GROUP


def _reference(scores: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-scores, kind="stable")[:k]


@pytest.mark.parametrize("size", [0, 1, 7, DEALT - 1, DEALT, GROUPS * 40 + 17, 47_534])
@pytest.mark.parametrize("k", [1, 10, 100, 5000])
def test_top_k_equals_a_full_stable_sort(size, k):
    rng = np.random.default_rng(size * 31 + k)
    for scores in (
        rng.standard_normal(size).astype(np.float32),
        rng.integers(0, 5, size).astype(np.float32),  # many equal scores, at the cut too
        np.zeros(size, dtype=np.float32),  # every score equal: the earliest rows win
        np.sort(rng.standard_normal(size)).astype(np.float32),  # the best all in the last block
    ):
        assert np.array_equal(top_k(scores, k), _reference(scores, k))


def test_the_best_in_the_tail_past_the_last_whole_row_of_groups_are_found():
    scores = np.zeros(DEALT + 5, dtype=np.float32)
    scores[-3:] = [3.0, 2.0, 1.0]
    assert top_k(scores, 2).tolist() == [len(scores) - 3, len(scores) - 2]


def test_a_floor_shared_by_many_equal_scores_still_gives_the_earliest():
    size = GROUPS * 40
    for best in (3, 100, 250):  # fewer, as many and more above the shared floor than wanted
        scores = np.zeros(size, dtype=np.float32)
        scores[-best:] = np.arange(best, 0, -1)
        for k in (10, 100):
            assert np.array_equal(top_k(scores, k), _reference(scores, k))


@pytest.mark.parametrize("k", [1, 100, 400])
def test_the_cut_holds_exactly_the_scores_at_or_above_the_kth_best(k):
    rng = np.random.default_rng(k)
    scores = rng.standard_normal(47_534).astype(np.float32)
    scores[rng.integers(0, len(scores), 40)] += 4.0  # a few far above the rest
    kth = np.sort(scores)[-k]
    assert np.array_equal(at_or_above_floor(scores, k), np.flatnonzero(scores >= kth))


def test_the_best_side_by_side_are_all_cut():
    # Neighbours fall in different groups: 400 best in one run reach 400 group maxima.
    scores = np.zeros(47_534, dtype=np.float32)
    scores[1000:1400] = np.linspace(2.0, 1.0, 400)
    assert at_or_above_floor(scores, 400).tolist() == list(range(1000, 1400))


def test_scores_holding_nan_cut_without_failing():
    scores = np.arange(47_534, dtype=np.float32)
    scores[::50] = np.nan  # NaN in 512 of the 1,024 groups: the floor is NaN (as before)
    assert top_k(scores, 400).tolist() == []
    scores = np.arange(47_534, dtype=np.float32)
    scores[:3] = np.nan  # a few: the best of the rest are found
    assert top_k(scores, 5).tolist() == list(range(47_533, 47_528, -1))
