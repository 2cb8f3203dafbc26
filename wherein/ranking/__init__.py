"""Ranking: BM25, vector similarity and the code-search signals (fusion: `wherein.retrieval`)."""

from wherein.ranking.bm25 import average_idf, bm25_scores
from wherein.ranking.signals import SIGNALS, Candidate, apply_signals
from wherein.ranking.tokens import query_tokens, tokenize
from wherein.ranking.vector import similarities

__all__ = [
    "SIGNALS",
    "Candidate",
    "apply_signals",
    "average_idf",
    "bm25_scores",
    "query_tokens",
    "similarities",
    "tokenize",
]
