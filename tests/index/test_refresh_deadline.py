"""A search's budget bounds its refresh: what it could not read in time waits, unlost."""

from __future__ import annotations

import os
import time

from tests.helpers import fresh_search, write_tree
from wherein.index.refresh import refresh_index
from wherein.index.store import open_store
from wherein.workspace import Root

FILES = {f"pkg/mod{i:02}.py": f"def handler_{i}(request):\n    return {i}\n" for i in range(40)}


def _search(repo, query: str, budget_s: float):
    return fresh_search(repo, query, cold_budget_s=budget_s)


def test_a_first_search_out_of_budget_answers_from_what_it_read_and_the_next_goes_on(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    first = _search(repo, "handler_39", 1e-6)
    (said,) = [w for w in first.warnings if "left unread" in w]
    assert "search.cold_budget_s = 1e-06 s" in said
    left = int(said.split(" ", 1)[0])
    assert 0 < left < len(FILES)
    second = _search(repo, "handler_39", 30.0)
    assert not any("left unread" in w for w in second.warnings)
    assert second.hits[0].path == "pkg/mod39.py"


def test_a_budget_of_zero_reads_every_changed_file_and_embeds_nothing(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    result = _search(repo, "handler_39", 0.0)
    assert not any("left unread" in w for w in result.warnings)
    assert result.hits[0].path == "pkg/mod39.py"


def test_files_left_by_a_deadline_keep_their_rows_and_nothing_is_deleted(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    store = open_store(tmp_path / "home" / "index.db")
    try:
        refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0)
        for name in FILES:  # every file changes: a new line, a later change time
            path = repo / name
            path.write_text(path.read_text() + "# edited\n")
            os.utime(path, ns=(time.time_ns(), time.time_ns()))
        report = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0, deadline=0.0)
        assert report.files_changed == 1 and report.files_left == len(FILES) - 1
        assert report.files_deleted == 0 and report.stamp is None
        assert len(store.file_states()) == len(FILES)
        again = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20, workers=0)
        assert again.files_changed == len(FILES) - 1 and again.files_left == 0
        assert again.stamp is not None
    finally:
        store.close()


def test_a_search_out_of_budget_still_says_what_it_could_not_read(tmp_path):
    repo = write_tree(tmp_path / "repo", FILES)
    (repo / "pkg" / "d\\xff.txt").write_text("shown as the other\n")
    os.mkdir(os.fsencode(repo / "pkg") + b"/d\xff.txt")  # two names shown alike
    first = _search(repo, "handler_39", 1e-6)
    assert any("left unread" in w for w in first.warnings)
    assert any(w.startswith("Unreadable, skipped: pkg/d") for w in first.warnings)
