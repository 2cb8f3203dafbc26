"""The keyword ranker for history: BM25 over messages, counting only messages that hold at least
half of the query's words.

Conversation is prose, and a long query shares a common word ("failures", "network") with many
unrelated messages. Reciprocal rank fusion rewards any message found by both rankers, so those
single-word matches would outrank a message the vector ranker put first because it says the
same thing in other words, which is the case history exists for. A minimum share of the
query's words (Lucene's `minimumNumberShouldMatch`, Elasticsearch's `minimum_should_match`)
keeps BM25 for what it does well here: names, error strings, several words together. A query
of one or two words needs one.
"""

from __future__ import annotations

import math
import re

import numpy as np

from wherein.history.store import HistoryStore
from wherein.ranking.bm25 import average_idf, bm25_scores
from wherein.ranking.tokens import STOPWORDS, query_tokens, tokenize

__all__ = ["MIN_WORD_SHARE", "keyword_order"]

MIN_WORD_SHARE = 0.5
MEAN_IDF_KEY = "mean_idf"
_WORD = re.compile(r"[^\W\d]\w*")


def keyword_order(
    store: HistoryStore, query: str, ids: np.ndarray, lengths: np.ndarray, depth: int
) -> list[int]:
    """Message ids by BM25 score, best first, at most `depth`, each holding enough query words.

    Args:
        ids: every message id, ascending; `lengths` their token counts, in the same order.
    """
    terms = query_tokens(query)
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for term in terms:
        message_ids, counts = store.postings(term)
        positions = np.clip(np.searchsorted(ids, message_ids), 0, len(ids) - 1)
        keep = ids[positions] == message_ids
        postings[term] = (positions[keep], counts[keep])
    cached = store.get_meta(MEAN_IDF_KEY)
    mean_idf = float(cached) if cached else average_idf(store.document_frequencies(), len(ids))
    scores = bm25_scores(terms, postings, lengths, mean_idf)
    words = _words(query)
    matched = np.zeros(len(ids), dtype=np.int64)
    for word in words:
        held = np.zeros(len(ids), dtype=bool)
        for token in set(tokenize(word)):
            if token in postings:
                held[postings[token][0]] = True
        matched += held
    need = max(1, math.ceil(len(words) * MIN_WORD_SHARE))
    scores[matched < need] = 0.0
    n = min(depth, int(np.count_nonzero(scores > 0)))
    if n == 0:
        return []
    picked = np.argpartition(-scores, n - 1)[:n]
    picked = picked[np.argsort(-scores[picked], kind="stable")]
    return [int(ids[i]) for i in picked]


def _words(query: str) -> list[str]:
    """The query's distinct words, without stopwords unless nothing else is left."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
    kept = [w for w in words if w not in STOPWORDS]
    return kept or words
