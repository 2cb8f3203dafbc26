"""What retrieval asks of a corpus, and the orders it fuses: one pipeline for code and history.

A corpus (a code index in scope, the history index) hands out two kinds of order of its
row ids, best first: lexical (BM25 over its terms) and per vector space (similarity to the
query). How it stores them is its own business; nothing here knows of SQLite. The orders
are fused by rank (`wherein.retrieval.fusion`), never by raw score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from wherein.retrieval.fusion import fuse_rrf

__all__ = ["Corpus", "VectorOrder", "fused_order", "query_orders"]

# One vector space's answer: row ids best first, the similarity of (at least) each of them,
# and the weight its order carries in the fusion (BM25's is 1.0; a weaker model's less).
VectorOrder = tuple[list[int], Mapping[int, float], float]


class Corpus(Protocol):
    """A body of rows that can be ranked for a query."""

    def lexical_order(self, query: str, depth: int) -> list[int]:
        """Ids of rows holding the query's terms, by BM25, best first, at most `depth`."""
        ...

    def vector_orders(self, query: str, depth: int) -> list[VectorOrder]:
        """Per vector space the corpus ranks by, its order for `query` (none: no vectors)."""
        ...


def query_orders(
    corpus: Corpus, query: str, depth: int, similarity_of: dict[int, float] | None = None
) -> tuple[list[list[int]], list[float]]:
    """(orders, their weights): the lexical order of `query`, then each vector order; each
    order's similarities are added to `similarity_of` (the first space that ranked a row
    names its similarity)."""
    orders = [corpus.lexical_order(query, depth)]
    weights = [1.0]
    for order, similarities, weight in corpus.vector_orders(query, depth):
        orders.append(order)
        weights.append(weight)
        if similarity_of is not None:
            for row_id, value in similarities.items():
                similarity_of.setdefault(row_id, value)
    return orders, weights


def fused_order(
    orders: Sequence[Sequence[int]], weights: Sequence[float] | None = None
) -> dict[int, float]:
    """Every id of `orders` with its fused score, best first; ties keep first-seen order."""
    fused = fuse_rrf(orders, weights)
    return {row_id: fused[row_id] for row_id in sorted(fused, key=fused.__getitem__, reverse=True)}
