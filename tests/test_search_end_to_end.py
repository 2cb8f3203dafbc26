"""Index and search a small repository with the real default model, through the library."""

from __future__ import annotations

import pytest

from tests.helpers import write_tree
from wherein.config import load_settings
from wherein.errors import UsageError
from wherein.indexing import build_index
from wherein.present import result_notes
from wherein.search import run_search

REPO = {
    "app/routing.py": (
        "class Router:\n"
        "    def add_route(self, path, handler):\n"
        "        '''Register a handler for a URL path.'''\n"
        "        self.routes[path] = handler\n"
    ),
    "app/retry.py": (
        "def retry_with_backoff(call, attempts=3):\n"
        "    '''Call again after a failure, waiting longer each time.'''\n"
        "    for attempt in range(attempts):\n"
        "        try:\n"
        "            return call()\n"
        "        except ConnectionError:\n"
        "            sleep(2 ** attempt)\n"
    ),
    "app/cookies.py": "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "README.md": "# Demo\n\nA tiny app used by the tests.\n",
}


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", REPO)


def test_index_then_search_finds_the_handler_with_the_real_model(repo):
    settings = load_settings(repo)
    summary = build_index(repo, settings)
    assert summary.report.files_seen == 4
    assert summary.chunks_embedded >= 4
    result = run_search(
        "wait longer after a failure and try again", workspace=repo, settings=settings
    )
    assert result.hits[0].path == "app/retry.py"
    assert result.hits[0].similarity is not None
    assert result.pending_chunks == 0
    payload = result.to_json()
    assert set(payload) == set(
        "query workspace scope results pending warnings usage expansion rerank tiers".split()
    )
    assert payload["tiers"]["full"]["pending"] == 0 and payload["tiers"]["full"]["used"]
    assert payload["tiers"]["fast"]["pending"] == 0  # built by 'wherein index' too
    assert payload["tiers"]["fast"]["chunks"] == payload["tiers"]["full"]["chunks"] >= 4


def test_a_first_search_answers_from_the_fast_tier_without_the_default_model(repo):
    """Never indexed: the search builds the lexical index and the fast tier, nothing more."""
    settings = load_settings(repo)
    query = "wait longer after a failure and try again"
    result = run_search(query, workspace=repo, settings=settings)
    assert result.hits[0].path == "app/retry.py"
    assert result.hits[0].similarity is not None  # ranked by the fast tier's vectors
    tiers = result.to_json()["tiers"]
    assert tiers["fast"]["used"] and tiers["fast"]["pending"] == 0
    assert not tiers["full"]["used"] and tiers["full"]["chunks"] == 0
    assert result.pending_chunks == tiers["full"]["pending"] >= 4
    assert any(
        "(the fast tier and keywords rank them); run 'wherein index' to finish" in note
        for note in result_notes(result)
    )
    # 'wherein index' then fills the default model's tier; the next search ranks by it.
    build_index(repo, settings)
    again = run_search(query, workspace=repo, settings=settings)
    assert again.to_json()["tiers"]["full"]["used"] and again.pending_chunks == 0


def test_symbol_query_puts_the_definition_first(repo):
    settings = load_settings(repo)
    build_index(repo, settings)
    result = run_search("parse_cookie", workspace=repo, settings=settings)
    assert result.hits[0].path == "app/cookies.py"
    assert "parse_cookie" in result.hits[0].symbols


def test_a_search_with_no_budget_still_builds_the_fast_tier_with_the_chunks(repo):
    settings = load_settings(repo)
    query = "register a handler for a path"
    result = run_search(query, workspace=repo, settings=settings, cold_budget_s=0.0)
    # The fast vectors are computed as each file is chunked, not in a pass the budget bounds.
    assert result.hits and result.hits[0].path == "app/routing.py"
    assert result.hits[0].similarity is not None
    assert result.to_json()["tiers"]["fast"]["pending"] == 0
    assert result.pending_chunks > 0  # the configured model's tier is left to 'wherein index'


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_a_usage_error(repo, query):
    with pytest.raises(UsageError, match="empty"):
        run_search(query, workspace=repo, settings=load_settings(repo))


@pytest.mark.parametrize("limit", [0, -3, 10_000])
def test_bad_limit_is_a_usage_error(repo, limit):
    with pytest.raises(UsageError, match="limit"):
        run_search("router", workspace=repo, settings=load_settings(repo), limit=limit)


def test_huge_query_is_cut_with_a_warning(repo):
    result = run_search(
        "route " * 20_000, workspace=repo, settings=load_settings(repo), cold_budget_s=0.0
    )
    assert any("cut" in w for w in result.warnings)


def test_search_on_a_damaged_index_moves_it_aside_and_still_answers(repo):
    from wherein.index.location import INDEX_FILE_NAME, index_dir

    settings = load_settings(repo)
    build_index(repo, settings)
    path = index_dir(repo) / INDEX_FILE_NAME
    page = 4096
    data = bytearray(path.read_bytes())
    data[2 * page :] = b"\x5a" * (len(data) - 2 * page)  # keep the header page only
    path.write_bytes(bytes(data))
    result = run_search("parse_cookie", workspace=repo, settings=settings, cold_budget_s=0.0)
    assert result.hits and result.hits[0].path == "app/cookies.py"
    assert any("moved it to" in w for w in result.warnings)
    assert list(path.parent.glob("index.db.broken-*"))


def test_a_one_file_workspace_still_finds_its_match(tmp_path):
    # With one chunk Okapi's idf is negative for every term; membership must still count.
    repo = write_tree(tmp_path / "one", {"only.py": "def frobnicate(widget):\n    return widget\n"})
    result = run_search(
        "frobnicate", workspace=repo, settings=load_settings(repo), cold_budget_s=0.0
    )
    assert [hit.path for hit in result.hits] == ["only.py"]


def test_a_no_op_index_does_not_load_the_model(repo, monkeypatch):
    import wherein.index_fill as indexing  # where the index job creates the model

    settings = load_settings(repo)
    build_index(repo, settings)
    loads = []
    real = indexing.create_embedder
    monkeypatch.setattr(indexing, "create_embedder", lambda s: loads.append(1) or real(s))
    summary = build_index(repo, settings)
    assert summary.report.files_changed == 0 and loads == []
    (repo / "app" / "new.py").write_text("def added():\n    return 1\n")
    summary = build_index(repo, settings)
    assert summary.chunks_embedded == 1 and loads == [1]
