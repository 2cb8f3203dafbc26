"""A resident index answers like a fresh search, and stays true to the disk between searches."""

from __future__ import annotations

import errno
import json
import os
import sys
import threading

import pytest

from tests.helpers import HashingEmbedder, resident_searcher, write_tree
from wherein.config import load_settings
from wherein.index import tree_watch
from wherein.index.change_check import TreeStamp
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import refresh_index
from wherein.index.store import Store, open_store
from wherein.resident import ResidentIndex
from wherein.search import run_search
from wherein.workspace import Root

FILES = {
    "app/retry.py": "def retry_with_backoff(call):\n    '''Wait longer after a failure.'''\n",
    "app/cookies.py": "def parse_cookie(header):\n    return dict(header)\n",
    "docs/notes.txt": "nothing to see\n",
}


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", FILES)


@pytest.fixture(params=["watched", "by stat"])
def search(request, repo, monkeypatch):
    """A resident search: with inotify watches where the system has them, and by a stat of
    the stamp, as where it cannot watch."""
    if request.param == "by stat":
        monkeypatch.setattr(tree_watch, "MAX_WATCHED_FOLDERS", 0)
    elif not sys.platform.startswith("linux"):
        pytest.skip("inotify is Linux's")
    run, resident = resident_searcher(repo)
    yield run
    resident.drop_store()


def _places(result):
    return [(hit.path, hit.start_line, hit.end_line, hit.excerpt) for hit in result.hits]


def test_resident_results_equal_fresh_results(repo, search):
    settings = load_settings(repo)
    for query in ("parse_cookie", "wait after a failure", "cookie header"):
        fresh = run_search(
            query, workspace=repo, settings=settings, fast_embedder=HashingEmbedder()
        )
        assert _places(search(query)) == _places(fresh)
        assert _places(search(query)) == _places(fresh)  # and again, from what it kept


def test_an_edit_in_place_is_seen_by_the_next_search(repo, search):
    assert search("parse_cookie").hits[0].path == "app/cookies.py"
    target = repo / "app/cookies.py"
    before = target.stat()
    target.write_text("def parse_biscuit(header):\n    return dict(header)\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert all("parse_cookie" not in hit.excerpt for hit in search("parse_cookie").hits)
    assert search("parse_biscuit").hits[0].path == "app/cookies.py"


def test_a_new_file_and_a_removed_file_are_seen(repo, search):
    search("parse_cookie")
    (repo / "app/router.py").write_text("def add_route_handler(path):\n    return path\n")
    assert search("add_route_handler").hits[0].path == "app/router.py"
    (repo / "app/router.py").unlink()
    assert all(hit.path != "app/router.py" for hit in search("add_route_handler").hits)


def test_a_search_that_refreshes_reports_the_index_it_wrote(repo, search):
    before = search("parse_cookie")
    (repo / "app/router.py").write_text("def add_route_handler(path):\n    return path\n")
    after = search("parse_cookie")  # its own refresh wrote the new file's chunk
    assert after.tiers["fast"].chunks == before.tiers["fast"].chunks + 1
    assert after.pending_chunks == before.pending_chunks + 1  # no default model here
    assert search("add_route_handler").hits[0].path == "app/router.py"


def test_a_search_that_fills_the_fast_tier_reports_the_vectors_it_wrote(repo):
    # Chunks indexed without fast vectors (an older index): the first search has no budget
    # to fill them; the next, the tree unchanged, fills them and must say so.
    store = open_store(index_dir(repo) / INDEX_FILE_NAME)
    refresh_index(store, [Root(repo)], max_file_bytes=1_000_000)
    store.close()
    resident, settings, embedder = ResidentIndex(), load_settings(repo), HashingEmbedder()

    def search(budget):
        return run_search(
            "parse_cookie",
            workspace=repo,
            settings=settings,
            fast_embedder=embedder,
            resident=resident,
            cold_budget_s=budget,
        )

    try:
        unfilled = search(0.0).tiers["fast"]
        assert unfilled.chunks == 0 and unfilled.pending > 0
        filled = search(None).tiers["fast"]
        assert (filled.chunks, filled.pending) == (unfilled.pending, 0)
    finally:
        resident.drop_store()


def test_a_changed_ignore_file_is_seen(repo, search):
    (repo / ".gitignore").write_text("# nothing yet\n")
    assert search("parse_cookie").hits[0].path == "app/cookies.py"
    ignore = repo / ".gitignore"
    before = ignore.stat()
    ignore.write_text("app/cookies.py\n")
    os.utime(ignore, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert all(hit.path != "app/cookies.py" for hit in search("parse_cookie").hits)


def test_an_edited_git_exclude_list_is_seen(repo, search):
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True)
    exclude.write_text("# nothing yet\n")
    assert search("parse_cookie").hits[0].path == "app/cookies.py"
    before = exclude.stat()
    exclude.write_text("app/cookies.py\n")
    os.utime(exclude, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert all(hit.path != "app/cookies.py" for hit in search("parse_cookie").hits)
    # And by a fresh process, which trusts the last walk's stamp while it holds.
    settings = load_settings(repo)
    fresh = run_search(
        "parse_cookie", workspace=repo, settings=settings, fast_embedder=HashingEmbedder()
    )
    assert all(hit.path != "app/cookies.py" for hit in fresh.hits)
    exclude.write_text("# all back\n")
    os.utime(exclude, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000))
    fresh = run_search(
        "parse_cookie", workspace=repo, settings=settings, fast_embedder=HashingEmbedder()
    )
    assert fresh.hits[0].path == "app/cookies.py"


def test_an_index_removed_under_an_idle_session_is_started_again_where_it_was(repo):
    from wherein.index.location import data_home
    from wherein.index.removal import remove_index

    search, resident = resident_searcher(repo)
    try:
        assert search("parse_cookie").hits[0].path == "app/cookies.py"
        directory = index_dir(repo)
        assert remove_index(directory, data_home()).removed  # `wherein forget`, between searches
        (repo / "app" / "jar.py").write_text("def bake_cookie_jar():\n    return []\n")
        assert search("bake_cookie_jar").hits[0].path == "app/jar.py"
        store = open_store(directory / INDEX_FILE_NAME)  # what the next process will read
        try:
            paths = {path for (path,) in store.conn.execute("SELECT path FROM files")}
        finally:
            store.close()
        assert {"app/jar.py", "app/cookies.py"} <= paths
    finally:
        resident.drop_store()


def _count_walks(monkeypatch) -> list[int]:
    from wherein.index import refresh as refresh_module

    walks: list[int] = []
    real = refresh_module.refresh_index
    monkeypatch.setattr(
        refresh_module, "refresh_index", lambda *a, **k: walks.append(1) or real(*a, **k)
    )
    return walks


def _unreadable_said(result) -> list[str]:
    return [w for w in result.warnings if w.startswith("Unreadable, skipped: ")]


def test_what_stays_unreadable_until_a_change_is_stamped_and_said_by_each_search(repo, monkeypatch):
    """Names told apart (one reported) change only by a rename, which the stamp sees: the
    searches after the walk skip it, in the session and in a fresh process, and say again
    what the index lacks."""
    search, resident = resident_searcher(repo)
    try:
        assert resident.change_detector() is None  # no walk yet
        search("parse_cookie")
        (repo / "docs" / "d\\xff.txt").write_text("shown as the other\n")
        os.mkdir(os.fsencode(repo / "docs") + b"/d\xff.txt")
        (said,) = _unreadable_said(search("parse_cookie"))
        assert "rename one of them" in said
        walks = _count_walks(monkeypatch)
        assert _unreadable_said(search("parse_cookie")) == [said]
        assert resident.change_detector()[0] in ("inotify", "stat")
        fresh = run_search("parse_cookie", workspace=repo, settings=load_settings(repo))
        assert _unreadable_said(fresh) == [said]
        assert walks == []
        os.rmdir(os.fsencode(repo / "docs") + b"/d\xff.txt")  # the rename a user makes
        assert _unreadable_said(search("parse_cookie")) == []
        assert walks == [1]
        resident.forget_walk()  # as while another process holds the index
        assert resident.change_detector() is None
    finally:
        resident.drop_store()


def test_a_walk_that_met_an_error_that_may_pass_walks_again_each_search(repo, monkeypatch):
    """An I/O error (injected: nothing else makes one) can pass with no change a stamp sees,
    so each search walks again, the session says why, and the folder is found once it reads."""
    from wherein import workspace

    real = workspace._open_folder

    def failing(path, expected):
        if os.path.basename(path) == "docs":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(path, expected)

    monkeypatch.setattr(workspace, "_open_folder", failing)
    search, resident = resident_searcher(repo)
    try:
        (said,) = _unreadable_said(search("nothing to see"))
        assert "docs/ (Input/output error)" in said
        kind, reason = resident.change_detector()
        assert kind == "walk" and "I/O error" in reason
        walks = _count_walks(monkeypatch)
        search("nothing to see")
        fresh = run_search("nothing to see", workspace=repo, settings=load_settings(repo))
        assert _unreadable_said(fresh) == [said]
        assert walks == [1, 1]
        monkeypatch.setattr(workspace, "_open_folder", real)  # the disk reads again
        found = search("nothing to see")
        assert found.hits[0].path == "docs/notes.txt" and not _unreadable_said(found)
        assert resident.change_detector()[0] in ("inotify", "stat")
    finally:
        resident.drop_store()


def test_the_stamp_of_a_walk_notices_each_kind_of_change(repo, tmp_path):
    store = open_store(tmp_path / "home" / "index.db")
    stamp = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20).stamp
    assert isinstance(stamp, TreeStamp) and stamp.unchanged()
    assert str(repo) in stamp.paths and str(repo / "app") in stamp.paths
    (repo / "docs" / "new.txt").write_text("hello\n")  # a new file: its folder's mtime moves
    assert not stamp.unchanged()
    stamp = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20).stamp
    (repo / "docs" / "new.txt").write_text("hello, longer\n")  # an edit: size and mtime move
    assert not stamp.unchanged()
    stamp = refresh_index(store, [Root(repo)], max_file_bytes=1 << 20).stamp
    (repo / "docs" / "new.txt").unlink()
    assert not stamp.unchanged()
    store.close()


def test_a_fresh_search_skips_the_walk_only_while_the_saved_stamp_holds(repo, monkeypatch):
    from wherein.index import refresh as refresh_module

    settings = load_settings(repo)
    embedder = HashingEmbedder()
    walks = []
    real = refresh_module.refresh_index
    monkeypatch.setattr(
        refresh_module, "refresh_index", lambda *a, **k: walks.append(1) or real(*a, **k)
    )

    def fresh(query):
        return run_search(query, workspace=repo, settings=settings, fast_embedder=embedder)

    assert fresh("parse_cookie").hits[0].path == "app/cookies.py"
    assert fresh("parse_cookie").hits[0].path == "app/cookies.py"
    assert len(walks) == 1  # the second process read the stamp instead of walking
    target = repo / "app/cookies.py"
    before = target.stat()
    target.write_text("def parse_biscuit(header):\n    return dict(header)\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert fresh("parse_biscuit").hits[0].path == "app/cookies.py"
    assert len(walks) == 2


def test_a_rewrite_that_keeps_size_and_modification_time_is_seen(repo):
    target = repo / "app/cookies.py"
    before = target.stat()
    settings = load_settings(repo)

    def fresh(query):
        return run_search(query, workspace=repo, settings=settings, fast_embedder=HashingEmbedder())

    assert fresh("parse_cookie").hits[0].path == "app/cookies.py"
    # The same number of bytes, then the old modification time put back (`touch -d`).
    target.write_text("def parse_biscui(header):\n    return dict(header)\n")
    assert target.stat().st_size == before.st_size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    hits = fresh("parse_biscui").hits
    assert hits[0].path == "app/cookies.py" and "parse_biscui" in hits[0].excerpt
    assert not hits[0].stale


def test_a_damaged_or_foreign_stamp_means_a_walk(repo, tmp_path):
    from wherein.index.change_check import STAMP_FILE_NAME, load_stamp, save_stamp

    stamp = TreeStamp.of([(str(repo / "app/retry.py"), 1, 2)])
    save_stamp(tmp_path, "roots-a", "7", stamp)
    assert load_stamp(tmp_path, "roots-a", "7") == stamp
    assert load_stamp(tmp_path, "roots-b", "7") is None  # other roots
    assert load_stamp(tmp_path, "roots-a", "8") is None  # the index changed since
    named = stamp.with_unreadable([f"f{i}.py (Permission denied)" for i in range(30)])
    save_stamp(tmp_path, "roots-a", "7", named)
    kept = load_stamp(tmp_path, "roots-a", "7")
    assert kept.unreadable == named.unreadable and len(kept.unreadable) == 20
    assert kept.unreadable_count == 30
    partial = b'{"format": 1, "key": "roots-a", "generation": "7"}'
    miscounted = json.dumps(
        {
            "format": 1,
            "key": "roots-a",
            "generation": "7",
            **{name: [] for name in ("paths", "sizes", "mtimes")},
            "unreadable": ["a", "b"],
            "unreadable_count": 1,
        }
    ).encode()
    for damage in (b"{not json", b"[]", partial, b"\xff\xfe", b"", miscounted):
        (tmp_path / STAMP_FILE_NAME).write_bytes(damage)
        assert load_stamp(tmp_path, "roots-a", "7") is None


def test_a_touched_file_is_not_called_stale_by_rows_kept_from_before(repo, search):
    """The rows a resident index keeps carry each file's size and mtime: a touch that
    keeps the content must not leave the next result marked stale."""
    hit = search("parse_cookie").hits[0]
    assert hit.path == "app/cookies.py" and not hit.stale
    target = repo / "app/cookies.py"
    before = target.stat()
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    hit = search("parse_cookie").hits[0]
    assert hit.path == "app/cookies.py" and not hit.stale


def _postings_built() -> None:
    for thread in threading.enumerate():
        if thread.name == "wherein-postings":
            thread.join(timeout=30)


def test_the_in_memory_lexical_index_answers_once_built_and_never_from_an_older_state(
    repo, search, monkeypatch
):
    settings = load_settings(repo)
    search("parse_cookie")  # the first search asks FTS5 and starts the build
    _postings_built()

    def no_fts5(*args, **kwargs):
        raise AssertionError("FTS5 was asked while the in-memory index was current")

    queries = ("parse_cookie", "wait after a failure", "cookie header")
    fresh = [
        _places(run_search(q, workspace=repo, settings=settings, fast_embedder=HashingEmbedder()))
        for q in queries
    ]
    with monkeypatch.context() as without_fts5:  # undoes this patch alone, not the conftest's
        without_fts5.setattr(Store, "lexical_order", no_fts5)
        assert [_places(search(query)) for query in queries] == fresh

    target = repo / "app/cookies.py"
    before = target.stat()
    target.write_text("def parse_biscuit(header):\n    return dict(header)\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    # The kept index is of the old content: this search must not use it.
    assert search("parse_biscuit").hits[0].path == "app/cookies.py"
    _postings_built()
    monkeypatch.setattr(Store, "lexical_order", no_fts5)
    assert search("parse_biscuit").hits[0].path == "app/cookies.py"
    assert all("parse_cookie" not in hit.excerpt for hit in search("parse_cookie").hits)


def test_once_the_chunk_places_are_held_only_the_hits_rows_are_read(repo, monkeypatch):
    settings = load_settings(repo)
    extra = {
        f"app/module_{n}.py": f"def handler_{n}(request):\n    return {n}\n" for n in range(30)
    }
    write_tree(repo, extra)
    search, resident = resident_searcher(repo)
    try:
        search("handler request")  # the first search of this state starts the build
        resident.wait_for_memory()
        queries = ("handler request", "parse_cookie", "wait after a failure")
        fresh = [
            _places(
                run_search(q, workspace=repo, settings=settings, fast_embedder=HashingEmbedder())
            )
            for q in queries
        ]
        asked: list[int] = []
        real = ResidentIndex.chunk_rows
        monkeypatch.setattr(
            ResidentIndex,
            "chunk_rows",
            lambda self, store, ids: asked.append(len(ids)) or real(self, store, ids),
        )
        assert [_places(search(query)) for query in queries] == fresh
        # The rows of the hits alone, not of every candidate (all 33 chunks here).
        assert asked and max(asked) <= settings["search.limit"]
    finally:
        resident.drop_store()


def test_the_in_memory_index_is_built_only_once_the_search_has_answered(repo, monkeypatch):
    """The build holds the GIL for seconds on a large index: started inside the search that
    found the index changed, it made that search wait on every row it read."""
    import wherein.code_ranking as code_ranking

    release = threading.Event()
    building_while_ranking: list[bool] = []
    real_build, real_rank = ResidentIndex._build_memory, code_ranking.rank_chunks

    def held_build(self, path):
        release.wait(10)
        real_build(self, path)

    def watched_rank(*args, **kwargs):
        ranked = real_rank(*args, **kwargs)
        building_while_ranking.append(
            any(t.name == "wherein-postings" for t in threading.enumerate())
        )
        return ranked

    monkeypatch.setattr(ResidentIndex, "_build_memory", held_build)
    monkeypatch.setattr("wherein.search.rank_chunks", watched_rank)
    search, resident = resident_searcher(repo)
    try:
        search("parse_cookie")
        assert building_while_ranking == [False]
        assert any(t.name == "wherein-postings" for t in threading.enumerate())
        release.set()
        resident.wait_for_memory()
        search("parse_cookie")
        assert resident.in_memory(resident.store(resident._store_path, False)) is not None
    finally:
        release.set()
        resident.drop_store()


def test_the_builder_waits_while_a_search_runs(repo):
    """Its Python loops hold the GIL: beside a search they made each step of it wait."""
    search, resident = resident_searcher(repo)
    try:
        with resident.searching():
            search("parse_cookie")  # finds the index stale, and wants it built
            builder = resident._builder
            assert builder is not None
            builder.join(0.3)
            assert builder.is_alive()  # at the first of its rows, waiting
            assert resident.in_memory(resident.store(resident._store_path, False)) is None
        resident.wait_for_memory(10)
        assert not builder.is_alive()
        assert resident.in_memory(resident.store(resident._store_path, False)) is not None
    finally:
        resident.drop_store()


def test_the_state_is_read_once_per_store_only_within_state_kept(tmp_path):
    # A search's ranking reads the state at each of its caches; between searches (and after
    # the search's own refresh) a change must be seen at the next read.
    store = open_store(tmp_path / "index.sqlite")
    other = open_store(tmp_path / "other.sqlite")
    resident = ResidentIndex()
    try:
        before = resident.state(store)
        with resident.state_kept():
            assert resident.state(store) == before
            with store.transaction() as conn:
                store.bump_generation(conn)
            assert resident.state(store) == before  # kept within
            with other.transaction() as conn:
                other.bump_generation(conn)
            assert resident.state(other) == ResidentIndex().state(other)  # each its own
            resident.forget_states()  # this session wrote: read again, then keep that
            assert resident.state(store) != before
            again = resident.state(store)
            with store.transaction() as conn:
                store.bump_generation(conn)
            assert resident.state(store) == again
        changed = resident.state(store)
        assert changed not in (before, again)
        with store.transaction() as conn:
            store.bump_generation(conn)
        assert resident.state(store) != changed  # read again outside
    finally:
        store.close()
        other.close()


BODY = "def handler_{i}_{j}(value):\n    '''Answer request {j} of kind {i}.'''\n    return {j}\n"


@pytest.fixture
def large_tier(tmp_path, monkeypatch):
    """A repository whose fast tier is ranked from a 4-bit copy: this small a tier is read by
    einsum and copied, as the standard library's 47,534 rows are, and the shortlist (4 x 5
    rows) is shorter than its 48."""
    from wherein import code_ranking
    from wherein.ranking import vector

    monkeypatch.setattr(vector, "EINSUM_MIN_ROWS", 16)
    monkeypatch.setattr(code_ranking, "CANDIDATES_PER_RANKER", 5)
    files = {f"pkg/kind{i}.py": BODY.format(i=i, j=i % 7) for i in range(48)}  # a chunk each
    return write_tree(tmp_path / "repo", files)


def _fresh_places(repo, query):
    result = run_search(
        query, workspace=repo, settings=load_settings(repo), fast_embedder=HashingEmbedder()
    )
    return _places(result)


def test_a_large_tier_is_ranked_from_a_4bit_copy_made_after_the_search(large_tier, monkeypatch):
    """The copy is made in a thread once a search wants it, serves every later search, edits
    included, and ranks exactly as a fresh search's float32 sums do."""
    from wherein.ranking.quantized_rows import QuantizedRows

    calls = []
    real_products = QuantizedRows.products

    def counted_products(self, query):
        calls.append(len(self.base))
        return real_products(self, query)

    monkeypatch.setattr(QuantizedRows, "products", counted_products)
    repo = large_tier
    search, resident = resident_searcher(repo)
    queries = ("answer request 3", "handler kind 6", "value of the request")
    try:
        assert _places(search(queries[0])) == _fresh_places(repo, queries[0])
        assert calls == []  # the first search sums every row; its copy is made after it
        resident.wait_for_memory(10)
        assert resident.copies_made == 1
        for query in queries:
            assert _places(search(query)) == _fresh_places(repo, query)
        assert calls and set(calls) == {48}  # the tier's rows, one chunk a file
        (repo / "pkg/kind0.py").write_text(BODY.format(i=0, j=9))  # a row dies, one is added
        (repo / "pkg/kind99.py").write_text(BODY.format(i=99, j=3))
        used = len(calls)
        for query in queries:  # the edit's rows are stacked after the same base rows
            assert _places(search(query)) == _fresh_places(repo, query)
        assert len(calls) > used and resident.copies_made == 1
    finally:
        resident.drop_store()


def test_a_copy_that_fails_costs_the_shortlist_not_the_search(large_tier, monkeypatch, caplog):
    """Its rows are summed whole, it is said in the log, and rows read again later (after the
    store is dropped, as after an error) are copied."""
    from wherein import resident as resident_module

    real_quantize = resident_module.quantize_rows
    failed = []

    def failing_once(*args, **kwargs):
        if not failed:
            failed.append(True)
            raise MemoryError("no room for the copy")
        return real_quantize(*args, **kwargs)

    monkeypatch.setattr(resident_module, "quantize_rows", failing_once)
    search, resident = resident_searcher(large_tier)
    try:
        search("answer request 3")
        resident.wait_for_memory(10)
        assert resident.copies_made == 0 and "No 4-bit copy of a tier's 48 rows" in caplog.text
        assert _places(search("handler kind 6")) == _fresh_places(large_tier, "handler kind 6")
        resident.drop_store()
        search("answer request 3")
        resident.wait_for_memory(10)
        assert resident.copies_made == 1
        assert _places(search("handler kind 6")) == _fresh_places(large_tier, "handler kind 6")
    finally:
        resident.drop_store()


def test_rows_read_again_after_a_large_change_get_a_copy_of_their_own(large_tier):
    """The copy of the rows held before is dropped with them (it keeps them alive: 48 MB
    for the standard library's fast tier), and the new rows are copied in turn."""
    search, resident = resident_searcher(large_tier)
    try:
        search("answer request 3")
        resident.wait_for_memory(10)
        (before,) = resident._copies.values()
        for i in range(20):  # more than a quarter of the rows: read whole again
            (large_tier / f"pkg/kind{i}.py").write_text(BODY.format(i=i, j=(i + 3) % 7))
        assert _places(search("handler kind 6")) == _fresh_places(large_tier, "handler kind 6")
        assert all(copy.base is not before.base for copy in resident._copies.values())
        resident.wait_for_memory(10)
        assert resident.copies_made == 2
        assert _places(search("value of the request")) == _fresh_places(
            large_tier, "value of the request"
        )
    finally:
        resident.drop_store()


def test_a_tier_still_filling_gets_no_copy_until_every_chunk_has_its_vector(large_tier):
    """Its rows are read whole again at each of its commits: a copy would be thrown away."""
    from wherein.index.refresh import check_identity, embed_pending

    full = HashingEmbedder(dimension=24)  # the configured model's tier, filled by hand here
    settings = load_settings(large_tier)
    # The index and its fast tier, as a first search leaves them.
    run_search("answer", workspace=large_tier, settings=settings, fast_embedder=HashingEmbedder())
    store = open_store(index_dir(large_tier) / INDEX_FILE_NAME)
    resident = ResidentIndex()

    def search(query):
        return run_search(
            query,
            workspace=large_tier,
            settings=settings,
            embedder=full,
            fast_embedder=HashingEmbedder(),
            resident=resident,
        )

    try:
        check_identity(store, full)
        pending = store.pending_texts(20)
        vectors = full.embed([text for _, text in pending])
        with store.transaction() as conn:
            store.put_vectors(conn, list(zip([h for h, _ in pending], vectors, strict=True)))
        search("answer request 3")
        resident.wait_for_memory(10)
        full_rows = resident._vectors["full"].matrix
        assert len(full_rows) == 20
        assert all(copy.base is not full_rows for copy in resident._copies.values())
        embed_pending(store, full, budget_s=None)  # the tier is complete now
        search("handler kind 6")
        resident.wait_for_memory(10)
        complete = resident._vectors["full"].matrix
        assert len(complete) == 48
        assert any(copy.base is complete for copy in resident._copies.values())
    finally:
        resident.drop_store()
        store.close()
