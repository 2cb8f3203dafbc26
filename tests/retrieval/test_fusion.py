from __future__ import annotations

import pytest

from wherein.code_ranking import FUSION_K
from wherein.index.tiers import FAST, FULL
from wherein.retrieval.corpus import VectorOrder, fused_order, query_orders
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


class _GivenOrders:
    """A corpus whose BM25 order and one vector space's order (with its weight) are given."""

    def __init__(self, lexical: list[int], vector: list[int], weight: float) -> None:
        self.lexical, self.vector, self.weight = lexical, vector, weight

    def lexical_order(self, query: str, depth: int) -> list[int]:
        return self.lexical[:depth]

    def vector_orders(self, query: str, depth: int) -> list[VectorOrder]:
        return [(self.vector[:depth], dict.fromkeys(self.vector, 0.5), self.weight)]


def test_the_fast_tier_s_first_yields_to_bm25_s_second_where_the_full_tier_s_would_not():
    # Row 3 is the model's first and BM25 misses it; row 2 is BM25's second.
    for tier, expected in ((FULL, [1, 3, 2]), (FAST, [1, 2, 3])):
        corpus = _GivenOrders(lexical=[1, 2], vector=[3, 1], weight=tier.fusion_weight)
        orders, weights = query_orders(corpus, "query", 10)
        assert weights == [1.0, tier.fusion_weight]
        assert list(fused_order(orders, weights)) == expected, tier.name


def test_code_fusion_puts_the_top_of_one_order_above_the_middle_of_both():
    # BM25's first, which the model missed, against a chunk both orders put 35th: the
    # literature's k of 60 ranked the middling one first.
    lexical = ["top", *(f"lexical-{n}" for n in range(33)), "both"]
    vector = [*(f"vector-{n}" for n in range(34)), "both"]
    code = fuse_rrf([lexical, vector], k=FUSION_K)
    assert max(code, key=code.get) == "top"
    classic = fuse_rrf([lexical, vector], k=RRF_K)
    assert max(classic, key=classic.get) == "both"
