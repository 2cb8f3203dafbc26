"""The keyword ranker for history: BM25 over messages, counting only messages that hold at least
half of the query's words.

Conversation is prose, and a long query shares a common word ("failures", "network") with many
unrelated messages. Reciprocal rank fusion rewards any message found by both rankers, so those
single-word matches would outrank a message the vector ranker put first because it says the
same thing in other words, which is the case history exists for. A minimum share of the
query's words (Lucene's `minimumNumberShouldMatch`, Elasticsearch's `minimum_should_match`)
keeps BM25 for what it does well here: names, error strings, several words together. A query
of one or two words needs one.

Scores are the FTS5 engine's (`wherein.storage.lexical`), the same BM25 as for code.
"""

from __future__ import annotations

import math
import re

from wherein.history.store import HistoryStore
from wherein.ranking.tokens import STOPWORDS, query_tokens, tokenize

__all__ = ["MIN_WORD_SHARE", "keyword_order"]

MIN_WORD_SHARE = 0.5
_WORD = re.compile(r"[^\W\d]\w*")


def keyword_order(store: HistoryStore, query: str, depth: int) -> list[int]:
    """Message ids by BM25 score, best first, at most `depth`, each holding enough query words."""
    terms = query_tokens(query)
    ranked = store.keyword_order(terms)
    if not ranked:
        return []
    words = _words(query)
    matched = dict.fromkeys(ranked, 0)
    for word in words:  # a word is held through the query terms it yields
        for message_id in store.holding(sorted(set(tokenize(word)) & set(terms))):
            if message_id in matched:
                matched[message_id] += 1
    need = max(1, math.ceil(len(words) * MIN_WORD_SHARE))
    return [message_id for message_id in ranked if matched[message_id] >= need][:depth]


def _words(query: str) -> list[str]:
    """The query's distinct words, without stopwords unless nothing else is left."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
    kept = [w for w in words if w not in STOPWORDS]
    return kept or words
