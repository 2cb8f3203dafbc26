"""Query vectors kept beside the index: a repeated fresh search asks no model; a bad file misses."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import numpy as np

from tests.helpers import HashingEmbedder, write_tree
from wherein.config import load_settings
from wherein.embedding.base import EmbedderIdentity
from wherein.index import query_vectors
from wherein.index.location import index_dir
from wherein.index.query_vectors import QUERY_VECTORS_FILE_NAME, QueryVectors
from wherein.search import run_search

FILES = {
    "app/retry.py": "def retry_with_backoff(call):\n    '''Wait longer after a failure.'''\n",
    "app/cookies.py": "def parse_cookie(header):\n    return dict(header)\n",
}
IDENTITY = EmbedderIdentity("test", "unit", 4)


def _places(result):
    return [(hit.path, hit.start_line, hit.score, hit.similarity) for hit in result.hits]


def test_a_repeated_fresh_search_takes_the_query_vector_from_disk(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    settings = load_settings(repo)
    embedder = HashingEmbedder()

    def fresh(query):
        return run_search(query, workspace=repo, settings=settings, fast_embedder=embedder)

    first = fresh("wait after a failure")
    calls = embedder.calls
    assert (index_dir(repo) / QUERY_VECTORS_FILE_NAME).is_file()
    again = fresh("wait after a failure")
    assert embedder.calls == calls  # nothing embedded: the vector came from the file
    assert _places(again) == _places(first) and first.hits[0].similarity is not None
    fresh("cookie header")  # a new query is embedded, as before
    assert embedder.calls == calls + 1


def test_a_damaged_file_is_a_miss_and_is_replaced(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    settings = load_settings(repo)
    embedder = HashingEmbedder()

    def fresh(query):
        return run_search(query, workspace=repo, settings=settings, fast_embedder=embedder)

    first = fresh("parse the cookie header")
    path = index_dir(repo) / QUERY_VECTORS_FILE_NAME
    path.write_bytes(b"not a database at all" * 100)
    calls = embedder.calls
    again = fresh("parse the cookie header")
    assert embedder.calls == calls + 1 and not again.warnings
    assert _places(again) == _places(first)
    assert fresh("parse the cookie header").hits and embedder.calls == calls + 1  # kept again


def test_a_vector_of_another_width_is_a_miss(tmp_path):
    saved = QueryVectors(tmp_path)
    saved.put(IDENTITY, "query", np.ones(4, dtype=np.float32) / 2)
    saved.close()
    assert np.array_equal(QueryVectors(tmp_path).get(IDENTITY, "query"), np.full(4, 0.5))
    wider = EmbedderIdentity("test", "unit", 8)
    assert QueryVectors(tmp_path).get(wider, "query") is None
    assert QueryVectors(tmp_path).get(IDENTITY, "another query") is None


def test_a_stored_vector_that_is_not_unit_length_is_a_miss(tmp_path):
    """Every model's vectors are unit length: another row was damaged after it was written,
    and a search ranking by it would rank by noise, query after query."""
    saved = QueryVectors(tmp_path)
    for text in ("nan", "huge", "unit", "zero"):
        saved.put(IDENTITY, text, np.full(4, 0.5, dtype=np.float32))
    saved.close()
    damaged = {"nan": [np.nan, 0, 0, 1], "huge": [3e20, 1, 1, 1], "zero": [0, 0, 0, 0]}
    with sqlite3.connect(tmp_path / QUERY_VECTORS_FILE_NAME) as conn:
        for text, values in damaged.items():
            blob = np.array(values, dtype=np.float32).tobytes()
            key = query_vectors._key(IDENTITY, text)
            conn.execute("UPDATE vectors SET vector = ? WHERE key = ?", (blob, key))
    again = QueryVectors(tmp_path)
    assert again.get(IDENTITY, "nan") is None and again.get(IDENTITY, "huge") is None
    assert np.array_equal(again.get(IDENTITY, "unit"), np.full(4, 0.5))
    assert np.array_equal(again.get(IDENTITY, "zero"), np.zeros(4))  # an empty text's


def test_only_the_newest_vectors_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(query_vectors, "QUERY_VECTORS_KEPT", 3)
    saved = QueryVectors(tmp_path)
    for number in range(5):
        saved.put(IDENTITY, f"query {number}", np.eye(4, dtype=np.float32)[number % 4])
    saved.close()
    fresh = QueryVectors(tmp_path)
    kept = [n for n in range(5) if fresh.get(IDENTITY, f"query {n}") is not None]
    assert kept == [2, 3, 4]


def test_no_query_text_is_stored(tmp_path):
    saved = QueryVectors(tmp_path)
    saved.put(IDENTITY, "where is the secret rotation handled", np.zeros(4, dtype=np.float32))
    saved.close()
    assert b"secret rotation" not in (tmp_path / QUERY_VECTORS_FILE_NAME).read_bytes()


def _fresh_search(repo, query: str) -> list[str]:
    """A `wherein search --json` in a new process: its answer, then the model modules it loaded."""
    code = (
        "import sys\n"
        "from wherein.cli import main\n"
        "main(['search', sys.argv[2], '--json', '--workspace', sys.argv[1]])\n"
        "print(sorted(m for m in ('tokenizers', 'safetensors') if m in sys.modules))\n"
    )
    command = [sys.executable, "-c", code, str(repo), query]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=os.environ)
    return out.stdout.strip().splitlines()


def test_a_repeated_search_in_a_new_process_loads_no_model(tmp_path):
    """The fast tier's model (tokenizers, safetensors) loads for a new query only."""
    repo = write_tree(tmp_path / "repo", FILES)

    def search(query: str) -> list[str]:
        return _fresh_search(repo, query)

    first = search("wait after a failure")
    assert first[-1] == "['safetensors', 'tokenizers']"
    again = search("wait after a failure")
    assert again[-1] == "[]"
    assert again[0] == first[0]  # the same answer, to the byte
    assert search("cookie header")[-1] == "['safetensors', 'tokenizers']"


def test_pieces_are_kept_per_model_and_read_back(tmp_path):
    saved = QueryVectors(tmp_path)
    saved.keep_pieces(IDENTITY, {"\u2581retry": [7, 8], "call": [9]})
    saved.keep_pieces(IDENTITY, {"\u2581retry": [1]})  # the first ids stay: they are the same
    saved.close()
    again = QueryVectors(tmp_path)
    assert again.known_pieces(IDENTITY, ["\u2581retry", "call", "gone"]) == {
        "\u2581retry": [7, 8],
        "call": [9],
    }
    other = EmbedderIdentity("test", "other", 4)
    assert again.known_pieces(other, ["\u2581retry"]) == {}
    many = [f"piece{n}" for n in range(query_vectors.PIECES_PER_LOOKUP * 2 + 3)]
    again.keep_pieces(IDENTITY, {piece: [n] for n, piece in enumerate(many)})
    assert again.known_pieces(IDENTITY, many) == {piece: [n] for n, piece in enumerate(many)}


def test_pieces_past_the_bound_start_again(tmp_path, monkeypatch):
    saved = QueryVectors(tmp_path)
    saved.keep_pieces(IDENTITY, {f"old{n}": [n] * 50 for n in range(500)})
    saved.close()
    with sqlite3.connect(tmp_path / QUERY_VECTORS_FILE_NAME) as conn:
        used = query_vectors._used_bytes(conn)
    conn.close()
    monkeypatch.setattr(query_vectors, "PIECES_MAX_BYTES", used - 1)
    later = QueryVectors(tmp_path)  # the next indexing process looks once
    later.keep_pieces(IDENTITY, {"new": [1]})
    assert later.known_pieces(IDENTITY, ["old0", "new"]) == {"new": [1]}
    monkeypatch.setattr(query_vectors, "PIECES_MAX_BYTES", used * 100)
    again = QueryVectors(tmp_path)
    again.keep_pieces(IDENTITY, {"newer": [2]})
    assert again.known_pieces(IDENTITY, ["new", "newer"]) == {"new": [1], "newer": [2]}


def test_a_damaged_file_knows_no_pieces(tmp_path):
    (tmp_path / QUERY_VECTORS_FILE_NAME).write_bytes(b"not a database at all" * 100)
    assert QueryVectors(tmp_path).known_pieces(IDENTITY, ["call"]) == {}


def _many_functions() -> dict[str, str]:
    """Enough chunks in one file that indexing tokenizes them by pieces, and learns those."""
    body = "".join(
        f"def handler_{n}(request):\n    '''Retry the request after a timeout.'''\n"
        + "".join(f"    step_{k} = request.retry(backoff={n}, attempt={k})\n" for k in range(12))
        + "    return step_0\n\n\n"
        for n in range(40)
    )
    return {"app/handlers.py": body, **FILES}


def test_a_new_query_made_of_the_codes_words_loads_no_tokenizer(tmp_path):
    """Indexing kept the ids of the code's pieces: a fresh search with a new query reads
    them and the query's own rows, and answers exactly as the loaded model would."""
    repo = write_tree(tmp_path / "repo", _many_functions())

    def search(query: str) -> list[str]:
        return _fresh_search(repo, query)

    search("cookie header")  # indexes, with the real fast tier
    answered = search("retry the request after a timeout")
    assert answered[-1] == "['safetensors']"  # the query's rows, read from the weights
    path = index_dir(repo) / QUERY_VECTORS_FILE_NAME
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM pieces")
        conn.execute("DELETE FROM vectors")
    conn.close()
    by_the_model = search("retry the request after a timeout")
    assert by_the_model[-1] == "['safetensors', 'tokenizers']"
    assert by_the_model[0] == answered[0]  # the same answer, to the byte
    assert search("where is the frobnication retried")[-1] == "['safetensors', 'tokenizers']"
    assert b"frobnication" not in path.read_bytes()  # a query's own words are never kept


def test_indexing_writes_each_learned_piece_once_however_many_workers_learn_it(
    tmp_path, monkeypatch
):
    from wherein.embedding.static import StaticEmbedder
    from wherein.index.refresh import _QueryPieces
    from wherein.index.store import open_store

    written: list[dict] = []
    keep = QueryVectors.keep_pieces

    def spy(self, identity, pieces):
        written.append(dict(pieces))
        keep(self, identity, pieces)

    monkeypatch.setattr(QueryVectors, "keep_pieces", spy)
    store = open_store(tmp_path / "index" / "index.db")
    fast = StaticEmbedder()
    pieces = _QueryPieces(store, fast)
    pieces.keep({"\u2581retry": [1], "call": [2]})  # one worker's task
    pieces.keep({"call": [2], "\u2581wait": [3]})  # the other's, before the commit
    pieces.write()
    pieces.keep({"\u2581retry": [1], "\u2581wait": [3], "\u2581backoff": [4]})  # after it
    pieces.close()
    store.close()
    assert written == [{"\u2581retry": [1], "call": [2], "\u2581wait": [3]}, {"\u2581backoff": [4]}]
    kept = QueryVectors(tmp_path / "index").known_pieces(fast.identity, ["call", "\u2581backoff"])
    assert kept == {"call": [2], "\u2581backoff": [4]}
