from __future__ import annotations

import pytest

from wherein.retrieval.fusion import RRF_K, fuse_rrf


def test_fuse_rrf_sums_reciprocal_ranks():
    scores = fuse_rrf([["a", "b"], ["b", "c"]])
    assert scores["b"] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert scores["a"] == pytest.approx(1 / (RRF_K + 1))
    assert max(scores, key=scores.get) == "b"


def test_fuse_rrf_keeps_first_list_order_on_ties():
    scores = fuse_rrf([["a", "b"], ["b", "a"]])
    assert scores["a"] == scores["b"]
    assert sorted(scores, key=lambda k: -scores[k]) == ["a", "b"]


def test_fuse_rrf_ignores_raw_score_scale():
    # Only ranks matter: a list is a list, whatever scores produced it.
    assert fuse_rrf([["x", "y"]]) == fuse_rrf([["x", "y"]], weights=[1.0])
