"""The in-memory lexical index ranks exactly as FTS5's bm25() ranks the same terms."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.ranking.test_bm25 import CORPUS
from wherein.ranking import postings as postings_module
from wherein.ranking.postings import Postings
from wherein.ranking.tokens import document_terms, query_tokens, tokenize
from wherein.storage.lexical import (
    CREATE_LEXICAL_TABLE,
    joined_terms,
    lexical_order,
    write_terms,
)

REPO = Path(__file__).resolve().parents[2]
QUERIES = [
    "how are routes registered",
    "redirect auth stripping",
    "cookie jar",
    "where is the index written to sqlite",
    "parse gitignore pattern with a star",
    "the the the",  # a term in most chunks: FTS5 floors its idf
    "zzzz_not_a_term_anywhere",
    "",
]


def assert_same(found: list[tuple[int, float]], expected: list[tuple[int, float]]) -> None:
    """The same chunks in the same order, with the same scores to the last few bits."""
    assert [cid for cid, _ in found] == [cid for cid, _ in expected]
    np.testing.assert_allclose([s for _, s in found], [s for _, s in expected], rtol=1e-12)


def _both(rows: list[tuple[int, list[str]]]) -> tuple[sqlite3.Connection, Postings]:
    conn = sqlite3.connect(":memory:")
    conn.execute(CREATE_LEXICAL_TABLE)
    write_terms(conn, [(row_id, joined_terms(terms)) for row_id, terms in rows])
    return conn, Postings(conn.execute("SELECT rowid, terms FROM lexical ORDER BY rowid"))


@pytest.fixture(scope="module")
def this_repository() -> Iterator[tuple[sqlite3.Connection, Postings]]:
    """This repository's own modules, a chunk per 40 lines, ids with gaps as after deletes."""
    rows = []
    for path in sorted((REPO / "wherein").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        rel = path.relative_to(REPO).as_posix()
        for start in range(0, len(lines), 40):
            text = "\n".join(lines[start : start + 40])
            rows.append((3 * len(rows) + 7, document_terms(rel, "", text)))
    conn, postings = _both(rows)
    yield conn, postings
    conn.close()  # opened before each test's own connections are tracked (tests/conftest.py)


@pytest.fixture(params=["rows holding a term", "every row"])
def scored(request, monkeypatch):
    """`order` scores only the rows holding a query term when they are few, else every row:
    both ways rank alike."""
    monkeypatch.setattr(postings_module, "SPARSE_SHARE", 0 if request.param[0] == "r" else 10**9)


@pytest.mark.parametrize("query", QUERIES)
def test_order_and_scores_equal_fts5s_on_this_repository(this_repository, query, scored):
    conn, postings = this_repository
    terms = query_tokens(query)
    for limit in (1, 10, 100, 10_000):
        assert_same(postings.order(terms, limit), lexical_order(conn, terms, limit))


def test_a_scope_keeps_the_whole_indexs_statistics_as_fts5s_filter_does(this_repository, scored):
    conn, postings = this_repository
    terms = query_tokens("lexical index order")
    within = np.array([cid for cid, _ in lexical_order(conn, terms, 10_000)][::3])
    scope = f"SELECT value FROM json_each('[{','.join(map(str, within.tolist()))}]')"
    expected = lexical_order(conn, terms, 50, scope)
    assert len(expected) == 50
    assert_same(postings.order(terms, 50, within[::-1]), expected)
    assert postings.order(terms, 50, np.array([], dtype=np.int64)) == []


def test_ties_go_to_the_lower_chunk_id(scored):
    same = tokenize("def retry(call): return call()")
    conn, postings = _both([(9, same), (4, same), (6, same), (2, tokenize("unrelated words"))])
    terms = query_tokens("retry call")
    assert [cid for cid, _ in postings.order(terms, 2)] == [4, 6]
    assert_same(postings.order(terms, 10), lexical_order(conn, terms, 10))


def test_the_checked_in_corpus_ranks_as_fts5_ranks_it():
    conn, postings = _both([(i + 1, tokenize(text)) for i, text in enumerate(CORPUS)])
    for query in QUERIES:
        terms = query_tokens(query)
        assert_same(postings.order(terms, 100), lexical_order(conn, terms, 100))


def test_an_empty_index_finds_nothing():
    assert Postings([]).order(["anything"], 10) == []
    assert len(Postings([])) == 0
