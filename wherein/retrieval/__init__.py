"""Retrieval over any corpus: its lexical and vector orders, fused by rank, the best k kept.

Knows nothing of SQLite or of what a row is: `wherein.index` and `wherein.history` each
provide a `Corpus`.
"""

from wherein.retrieval.corpus import Corpus, VectorOrder, fused_order, query_orders
from wherein.retrieval.fusion import RRF_K, fuse_rrf
from wherein.retrieval.selection import top_k

__all__ = ["RRF_K", "Corpus", "VectorOrder", "fuse_rrf", "fused_order", "query_orders", "top_k"]
