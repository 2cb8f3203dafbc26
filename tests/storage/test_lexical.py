"""The FTS5 lexical engine ranks like rank_bm25.BM25Okapi with FTS5's own k1 and b."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from tests.ranking.test_bm25 import CORPUS
from wherein.ranking.tokens import document_terms, query_tokens, tokenize
from wherein.storage.lexical import (
    CREATE_LEXICAL_TABLE,
    joined_terms,
    lexical_order,
    matches_any,
    write_terms,
)

# FTS5's bm25() fixes these (sqlite.org/fts5.html, "The bm25() function").
FTS5_K1 = 1.2
FTS5_B = 0.75
# Queries whose every term is in fewer than half the documents: there both engines use the
# plain Okapi idf. (For a term in more than half, FTS5 floors idf at 1e-6 and rank_bm25 at
# epsilon times the mean idf; see test_a_term_in_most_chunks_still_finds_them.)
QUERIES = [
    "how are routes registered",
    "redirect auth stripping",
    "cookie jar",
    "transport adapter connection",
    "view function",
    "blueprint records",
]


@pytest.fixture
def conn():
    connection = sqlite3.connect(":memory:")
    connection.execute(CREATE_LEXICAL_TABLE)
    write_terms(
        connection, [(i + 1, joined_terms(tokenize(text))) for i, text in enumerate(CORPUS)]
    )
    yield connection
    connection.close()


@pytest.mark.parametrize("query", QUERIES)
def test_fts5_scores_and_order_equal_bm25okapi_with_the_same_k1_and_b(conn, query):
    docs = [tokenize(text) for text in CORPUS]
    terms = query_tokens(query)
    reference = BM25Okapi(docs, k1=FTS5_K1, b=FTS5_B).get_scores(terms)
    assert all(np.log(len(docs) - n + 0.5) > np.log(n + 0.5) for n in _dfs(docs, terms))
    ranked = lexical_order(conn, terms, 100)
    matched = [i for i, doc in enumerate(docs) if set(doc) & set(terms)]
    assert sorted(cid - 1 for cid, _ in ranked) == matched  # every match, nothing else
    ours = {cid - 1: score for cid, score in ranked}
    np.testing.assert_allclose([ours[i] for i in matched], reference[matched], rtol=1e-6)
    expected = sorted(matched, key=lambda i: (-reference[i], i))
    assert [cid - 1 for cid, _ in ranked] == expected


def test_the_only_chunk_of_an_index_is_found():
    # In a one-chunk index every idf is at its floor: membership, not score, decides.
    single = sqlite3.connect(":memory:")
    single.execute(CREATE_LEXICAL_TABLE)
    write_terms(single, [(7, joined_terms(tokenize("def handler(): the only chunk")))])
    assert [cid for cid, _ in lexical_order(single, ["handler"], 10)] == [7]


def test_tokens_are_kept_whole_by_the_engine():
    """Every term we write comes back from the engine's vocabulary unchanged."""
    connection = sqlite3.connect(":memory:")
    connection.execute(CREATE_LEXICAL_TABLE)
    text = "def parse_HTTPHeader(µs, naïve_ß, ſtrange, __dunder__, x1_2):\n    return ΣΑΣ"
    terms = document_terms("pkg/módulo_x.py", "class Ünïcode:", text)
    write_terms(connection, [(1, joined_terms(terms))])
    connection.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(lexical, 'row')")
    stored = {row[0] for row in connection.execute("SELECT term FROM vocab")}
    assert stored == set(terms)


def test_scope_restricts_the_ranked_chunks(conn):
    everything = lexical_order(conn, ["url"], 100)
    assert len(everything) > 2
    kept = lexical_order(conn, ["url"], 100, "SELECT ? UNION SELECT ?", [1, 5])
    assert {cid for cid, _ in kept} == {1, 5} & {cid for cid, _ in everything}


def test_operators_in_terms_are_read_as_words(conn):
    # Unquoted, "and" / "or" / "not" / "near" would be FTS5 syntax (an error, or a query
    # that means something else); quoted they are words like any other.
    found = {cid - 1 for cid, _ in lexical_order(conn, ["or", "and", "not", "near"], 10)}
    assert found == {i for i, text in enumerate(CORPUS) if " and " in f" {text} "}
    assert found
    assert matches_any(conn, ["cookie"])
    assert not matches_any(conn, ["nosuchword"])


def _dfs(docs: list[list[str]], terms: list[str]) -> list[int]:
    return [sum(term in doc for doc in docs) for term in terms]


@pytest.mark.parametrize("damage", ["segments", "structure"])
def test_a_damaged_lexical_index_is_rebuilt_by_the_checked_open(tmp_path, damage):
    from tests.helpers import write_tree
    from wherein.config import load_settings
    from wherein.index.location import INDEX_FILE_NAME, index_dir
    from wherein.index.store import open_store
    from wherein.indexing import build_index

    files = {f"m{i}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(40)}
    repo = write_tree(tmp_path / "repo", files)
    settings = load_settings(repo, environ={"WHEREIN_EMBEDDING_PROVIDER": "static"})
    build_index(repo, settings)
    db = index_dir(repo) / INDEX_FILE_NAME
    conn = sqlite3.connect(db)
    # id 1 holds the averages and id 10 the structure record (sqlite.org/fts5.html, "FTS5
    # shadow tables"); the rest are segment leaves. SQLite's quick_check sees neither.
    where = "id NOT IN (1, 10)" if damage == "segments" else "id = 10"
    conn.execute(f"UPDATE lexical_data SET block = zeroblob(length(block)) WHERE {where}")
    conn.commit()
    conn.close()
    summary = build_index(repo, settings)  # 'wherein index' opens the index checked
    said = [notice for notice in summary.notices if str(db) in notice]
    assert len(said) == 1 and "rebuilt it from the terms" in said[0], summary.notices
    store = open_store(db)
    best = store.lexical_order(["handler_3"], 5)[0][0]
    assert store.chunk_rows([best])[best].path == "m3.py"
    assert store.counts()["chunks"] == 40
    store.close()
