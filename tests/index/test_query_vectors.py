"""Query vectors kept beside the index: a repeated fresh search asks no model; a bad file misses."""

from __future__ import annotations

import os
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


def test_only_the_newest_vectors_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(query_vectors, "QUERY_VECTORS_KEPT", 3)
    saved = QueryVectors(tmp_path)
    for number in range(5):
        saved.put(IDENTITY, f"query {number}", np.full(4, number, dtype=np.float32))
    saved.close()
    fresh = QueryVectors(tmp_path)
    kept = [n for n in range(5) if fresh.get(IDENTITY, f"query {n}") is not None]
    assert kept == [2, 3, 4]


def test_no_query_text_is_stored(tmp_path):
    saved = QueryVectors(tmp_path)
    saved.put(IDENTITY, "where is the secret rotation handled", np.zeros(4, dtype=np.float32))
    saved.close()
    assert b"secret rotation" not in (tmp_path / QUERY_VECTORS_FILE_NAME).read_bytes()


def test_a_repeated_search_in_a_new_process_loads_no_model(tmp_path):
    """The fast tier's model (tokenizers, safetensors) loads for a new query only."""
    repo = write_tree(tmp_path / "repo", FILES)
    code = (
        "import sys\n"
        "from wherein.cli import main\n"
        "main(['search', sys.argv[2], '--json', '--workspace', sys.argv[1]])\n"
        "print(sorted(m for m in ('tokenizers', 'safetensors') if m in sys.modules))\n"
    )

    def search(query: str) -> list[str]:
        command = [sys.executable, "-c", code, str(repo), query]
        out = subprocess.run(command, capture_output=True, text=True, check=True, env=os.environ)
        return out.stdout.strip().splitlines()

    first = search("wait after a failure")
    assert first[-1] == "['safetensors', 'tokenizers']"
    again = search("wait after a failure")
    assert again[-1] == "[]"
    assert again[0] == first[0]  # the same answer, to the byte
    assert search("cookie header")[-1] == "['safetensors', 'tokenizers']"
