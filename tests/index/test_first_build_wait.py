"""Two first searches at once: the second waits for the first build, it does not answer
"No results." from an index that holds nothing yet."""

from __future__ import annotations

import threading
import time

from tests.helpers import fresh_search, write_tree
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import index_lock, refresh_index
from wherein.index.store import open_store
from wherein.workspace import Root

FILES = {
    "app/cookies.py": "def parse_cookie(header):\n    return dict(header)\n",
    "app/retry.py": "def retry_with_backoff(call):\n    return call()\n",
}


def _search(repo, budget_s: float):
    return fresh_search(repo, "parse_cookie", cold_budget_s=budget_s)


def test_a_search_waits_for_another_process_building_the_first_index(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    directory = index_dir(repo)
    found = []
    with index_lock(directory, wait=True):  # the other process's first build holds it
        searcher = threading.Thread(target=lambda: found.append(_search(repo, 30.0)))
        searcher.start()
        time.sleep(0.5)
        assert searcher.is_alive()  # waiting, not answering from an empty index
        store = open_store(directory / INDEX_FILE_NAME)
        try:
            refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0)
        finally:
            store.close()
    searcher.join(timeout=60)
    (result,) = found
    assert result.hits[0].path == "app/cookies.py"
    assert not any("first time" in w for w in result.warnings)


def test_it_waits_no_longer_than_the_cold_budget_and_says_why(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    with index_lock(index_dir(repo), wait=True):
        result = _search(repo, 0.3)
    assert result.hits == []
    assert any("for the first time" in w and "0.3 s" in w for w in result.warnings)


def test_an_index_that_holds_files_is_searched_at_once_while_another_process_writes(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    assert _search(repo, 30.0).hits[0].path == "app/cookies.py"  # built
    with index_lock(index_dir(repo), wait=True):  # `wherein index` embedding, say
        result = _search(repo, 30.0)
    assert result.hits[0].path == "app/cookies.py"
    assert any("being updated" in w for w in result.warnings)
    assert not any("first time" in w for w in result.warnings)  # it did not wait
