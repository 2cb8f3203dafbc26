"""Reciprocal rank fusion: orders are combined by rank, never by raw score."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

__all__ = ["RRF_K", "fuse_rrf"]

# k = 60 follows Cormack, Clarke and Buettcher 2009, "Reciprocal Rank Fusion
# outperforms Condorcet and individual Rank Learning Methods".
RRF_K = 60


def fuse_rrf(
    orders: Sequence[Sequence[Hashable]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> dict[Hashable, float]:
    """Score each item by the sum of weight / (k + rank) over the orders it appears in.

    Ranks are 1-based. Items keep the first-seen order on equal scores because the
    returned dict is filled in order of the first list first.
    """
    weights = weights or [1.0] * len(orders)
    scores: dict[Hashable, float] = {}
    for order, weight in zip(orders, weights, strict=True):
        for rank, item in enumerate(order, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores
