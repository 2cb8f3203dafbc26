"""top_k: the k best positions, best first, earlier rows first among equal scores."""

from __future__ import annotations

import numpy as np
import pytest

from wherein.retrieval.selection import BLOCK, MIN_BLOCKS, top_k


def _reference(scores: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-scores, kind="stable")[:k]


@pytest.mark.parametrize(
    "size", [0, 1, 7, BLOCK * MIN_BLOCKS - 1, BLOCK * MIN_BLOCKS, BLOCK * 40 + 17, 47_534]
)
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


def test_the_best_in_the_tail_past_the_last_whole_block_are_found():
    scores = np.zeros(BLOCK * MIN_BLOCKS + 5, dtype=np.float32)
    scores[-3:] = [3.0, 2.0, 1.0]
    assert top_k(scores, 2).tolist() == [len(scores) - 3, len(scores) - 2]


def test_a_floor_shared_by_many_equal_scores_still_gives_the_earliest():
    size = BLOCK * 40
    for best in (3, 100, 250):  # fewer, as many and more above the shared floor than wanted
        scores = np.zeros(size, dtype=np.float32)
        scores[-best:] = np.arange(best, 0, -1)
        for k in (10, 100):
            assert np.array_equal(top_k(scores, k), _reference(scores, k))
