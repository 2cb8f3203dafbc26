"""Exact mode and the filtered BM25 order against plain oracles, on a real index.

Exact mode reads chunk texts through SQLite (`instr`, narrowed by FTS5 when the literal holds
a bounded word); Python's `in` and `str.count` over the same texts are the oracle. The BM25
order among a list of ids must be the store's own folder-scoped order for the same chunks.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import write_tree
from wherein.cli import main
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.store import open_store
from wherein.narrowing import lexical_within
from wherein.ranking.tokens import query_tokens
from wherein.text_match import bounded_words, exact_match

SOURCES = {
    "pkg/a.py": "def __init__(self, sock):\n    self.sock = sock  # café\n    self.sock.close()\n",
    "pkg/b.py": "class Café:\n    def __init__(self):\n        self.x = {'k': 1}\n",
    "pkg/c.js": "const x = a => a.b(c);\nlet y = x(1) == 2 ? 'yes' : 'no';\n",
    "pkg/d.py": "def init(self):\n    return 1abc + xinit_sock\n",
    "lib/e.py": "def sock_close(sock):\n    sock.close()\n    sock.close()\n",
    "README.md": "# Title\n\nself.sock is closed by `sock.close()`.\n",
}
LITERALS = [
    "def __init__(self",  # bounded word: __init__
    "self.sock",  # bounded: none (self at the start, sock at the end)
    ".sock.",  # bounded: sock
    "sock.close()",
    "(self)",
    "init",  # part of __init__, init, xinit_sock
    "abc",  # inside 1abc: a word the tokenizer reads as abc
    " + xinit_sock\n",
    "a => a.b(c)",
    "== 2 ?",
    "Café",
    "café",
    "{'k': 1}",
    "SOCK",
    "nowhere at all",
    "close()\n    sock.close()",  # two lines
]


@pytest.fixture
def store(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    root = write_tree(tmp_path / "repo", SOURCES).resolve()
    assert main(["index", "--workspace", str(root)]) == 0
    capsys.readouterr()
    opened = open_store(index_dir(root) / INDEX_FILE_NAME)
    yield opened
    opened.close()


def _texts(store) -> dict[int, str]:
    return dict(store.conn.execute("SELECT id, text FROM chunks"))


@pytest.mark.parametrize("literal", LITERALS)
def test_exact_counts_are_those_of_python_over_every_chunk(store, literal):
    expected = {cid: text.count(literal) for cid, text in _texts(store).items() if literal in text}
    assert exact_match(literal).counts(store.conn, None) == expected


@pytest.mark.parametrize("literal", LITERALS)
def test_exact_counts_within_ids_keep_only_those(store, literal):
    texts = _texts(store)
    within = np.array(sorted(texts)[::2], dtype=np.int64)
    expected = {cid: texts[cid].count(literal) for cid in within.tolist() if literal in texts[cid]}
    assert exact_match(literal).counts(store.conn, within) == expected


@pytest.mark.parametrize(
    ("literal", "words"),
    [
        ("def __init__(self", ["__init__"]),
        ("self.sock", []),
        ("a.sock.b", ["sock"]),
        ("(1abc)", ["abc"]),
        ("x getHTTPResponse(y", ["gethttpresponse"]),
        ("retry_with", []),
        (" café ", ["café"]),
    ],
)
def test_bounded_words_are_the_words_cut_on_both_sides(literal, words):
    assert bounded_words(literal) == words


@pytest.mark.parametrize("query", ["sock close", "init self", "café x", "nothing here"])
def test_lexical_within_ranks_as_the_folder_scope_does(store, query):
    folder_ids, _ = store.chunk_table(["pkg"])
    terms = query_tokens(query)
    assert lexical_within(store, terms, 100, folder_ids) == store.lexical_order(terms, 100, ["pkg"])


def test_lexical_within_no_ids_ranks_nothing(store):
    assert lexical_within(store, ["sock"], 100, np.zeros(0, dtype=np.int64)) == []
