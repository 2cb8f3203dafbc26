"""Okapi BM25 over postings, scored exactly as `rank_bm25.BM25Okapi` scores.

score(D, Q) = sum over q in Q of idf(q) * f(q, D) * (k1 + 1) /
              (f(q, D) + k1 * (1 - b + b * |D| / avgdl))
with idf(q) = ln(N - n(q) + 0.5) - ln(n(q) + 0.5) (Robertson and Zaragoza 2009,
"The Probabilistic Relevance Framework: BM25 and Beyond", eq. 3.2). As in
rank_bm25, a negative idf (a term in more than half the documents) is replaced
by epsilon times the mean idf of the vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["B", "EPSILON", "K1", "average_idf", "bm25_scores"]

# rank_bm25's BM25Okapi defaults, kept so the reference and this engine agree.
K1 = 1.5
B = 0.75
EPSILON = 0.25


def _idf(document_frequency: np.ndarray | int, n_docs: int) -> np.ndarray:
    df = np.asarray(document_frequency, dtype=np.float64)
    return np.log(n_docs - df + 0.5) - np.log(df + 0.5)


def average_idf(document_frequencies: np.ndarray, n_docs: int) -> float:
    """Mean idf over a vocabulary (negative values included, as rank_bm25 computes it)."""
    if len(document_frequencies) == 0 or n_docs == 0:
        return 0.0
    return float(_idf(document_frequencies, n_docs).mean())


def bm25_scores(
    query_terms: Sequence[str],
    postings: Mapping[str, tuple[np.ndarray, np.ndarray]],
    doc_lengths: np.ndarray,
    mean_idf: float,
) -> np.ndarray:
    """BM25 score of every document for the query.

    Args:
        query_terms: tokens of the query; a repeated token counts again, as in rank_bm25.
        postings: per term, (document positions, term counts) within `doc_lengths`.
        doc_lengths: token count of each document in the collection being ranked.
        mean_idf: `average_idf` of the collection's vocabulary.
    """
    n_docs = len(doc_lengths)
    scores = np.zeros(n_docs, dtype=np.float64)
    if n_docs == 0:
        return scores
    lengths = doc_lengths.astype(np.float64)
    avgdl = lengths.mean() or 1.0
    norm = K1 * (1 - B + B * lengths / avgdl)
    for term in query_terms:
        positions, counts = postings.get(term, (None, None))
        if positions is None or len(positions) == 0:
            continue
        idf = float(_idf(len(positions), n_docs))
        if idf < 0:
            idf = EPSILON * mean_idf
        tf = counts.astype(np.float64)
        scores[positions] += idf * tf * (K1 + 1) / (tf + norm[positions])
    return scores
