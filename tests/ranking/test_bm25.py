"""The BM25 engine ranks exactly like rank_bm25.BM25Okapi, the reference."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from wherein.ranking.bm25 import average_idf, bm25_scores
from wherein.ranking.tokens import tokenize

# A small corpus checked into the tests: docstrings and code lines of a web framework.
CORPUS = [
    "def add_url_rule(self, rule, endpoint=None, view_func=None): register a url rule",
    "class Session: a requests session persists cookies and connection pooling",
    "def send(self, request, **kwargs): send a prepared request through the adapter",
    "def resolve_redirects(self, resp, req): follow redirect responses until done",
    "def get_adapter(self, url): return the connection adapter for the url",
    "class HTTPAdapter(BaseAdapter): the built-in transport adapter for urllib3",
    "def merge_cookies(cookiejar, cookies): add cookies to the cookie jar",
    "def should_strip_auth(self, old_url, new_url): decide whether to strip auth on redirect",
    "def route(self, rule, **options): a decorator to register a view function for a rule",
    "the the the the common words everywhere the url the request",
    "def dispatch_request(self): match the url and call the view function",
    "class Blueprint(Scaffold): a blueprint records routes to register later",
]
QUERIES = [
    "how are routes registered",
    "redirect auth stripping",
    "cookie jar",
    "the url request",
    "transport adapter connection",
    "view function",
    "unknownterm",
]


def _ours(docs: list[list[str]], query: list[str]) -> np.ndarray:
    vocabulary: dict[str, tuple[list[int], list[int]]] = {}
    for position, doc in enumerate(docs):
        for term, count in Counter(doc).items():
            entry = vocabulary.setdefault(term, ([], []))
            entry[0].append(position)
            entry[1].append(count)
    postings = {t: (np.array(p), np.array(c)) for t, (p, c) in vocabulary.items()}
    dfs = np.array([len(p) for p, _ in vocabulary.values()])
    lengths = np.array([len(d) for d in docs])
    return bm25_scores(query, postings, lengths, average_idf(dfs, len(docs)))


@pytest.mark.parametrize("query", QUERIES)
def test_bm25_scores_match_rank_bm25_reference(query):
    docs = [tokenize(text) for text in CORPUS]
    terms = tokenize(query)
    reference = BM25Okapi(docs).get_scores(terms)
    ours = _ours(docs, terms)
    np.testing.assert_allclose(ours, reference, rtol=1e-9, atol=1e-12)
    assert list(np.argsort(-ours, kind="stable")) == list(np.argsort(-reference, kind="stable"))


def test_bm25_common_term_uses_epsilon_floor_like_reference():
    docs = [["the", "a"], ["the", "b"], ["the", "c"], ["x"]]
    reference = BM25Okapi(docs).get_scores(["the"])
    assert reference[0] > 0  # the floor keeps a term in 3 of 4 documents positive
    np.testing.assert_allclose(_ours(docs, ["the"]), reference)


def test_bm25_empty_collection_scores_nothing():
    assert len(bm25_scores(["x"], {}, np.zeros(0, dtype=np.int64), 0.0)) == 0
