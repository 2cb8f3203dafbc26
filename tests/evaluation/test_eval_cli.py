"""`wherein eval` end to end: real git histories, real indexes (static model), the CLI."""

from __future__ import annotations

import json
import os
import tempfile

import pytest

from tests.evaluation.gitrepo import GitRepo
from tests.evaluation.histories import (
    EXPECTED_CONSIDERED,
    EXPECTED_DROPPED,
    EXPECTED_QUESTIONS,
    scripted_history,
)
from tests.evaluation.test_mining import snapshot
from tests.helpers import cli
from tests.meter.browser import Browser, find_browser
from wherein.evaluation.corpus import indexed_paths
from wherein.evaluation.scoring import Answer, summarize
from wherein.index.location import data_home


@pytest.fixture(autouse=True)
def static(monkeypatch):
    """The in-process static model: the scores, not the model, are under test."""
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory) -> GitRepo:
    return scripted_history(tmp_path_factory.mktemp("eval") / "repo")


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """A temporary directory of the test's own, so what a comparison leaves there shows."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_eval_json_has_the_mined_questions_every_rank_and_the_counts(history_repo, capsys):
    before = snapshot(history_repo.root)
    code, out, err = cli(capsys, "eval", "--workspace", str(history_repo.root), "--json")
    assert code == 0, err
    report = json.loads(out)

    mining = report["mining"]
    assert (mining["considered"], mining["kept"]) == (EXPECTED_CONSIDERED, 7)
    assert {k: v["count"] for k, v in mining["dropped"].items()} == EXPECTED_DROPPED
    assert mining["kinds"] == {"lexical": 1, "semantic": 6}
    assert "checked at HEAD" in mining["gold_files"]
    queries = report["queries"]
    assert [(q["query"], set(q["gold"])) for q in queries] == EXPECTED_QUESTIONS
    lexical = [q for q in queries if q["kind"] == "lexical"]
    assert [q["lexical_reason"] for q in lexical] == ["identifier:backoff_delay"]
    assert [r["name"] for r in report["retrievers"]] == ["wherein", "bm25", "grep"]
    for query in queries:
        assert set(query["ranks"]) == {"wherein", "bm25", "grep"}
        assert all(rank is None or 1 <= rank <= 10 for rank in query["ranks"].values())
    # The baselines' ranks, exactly: plain BM25 puts the short test file that names
    # backoff_delay twice above retry.py, and neither baseline finds the Chinese or Russian
    # words in the English code.
    assert [q["ranks"]["bm25"] for q in queries] == [1, 2, None, None, 1, 1, 1]
    assert [q["ranks"]["grep"] for q in queries] == [1, 1, None, None, 1, 1, 1]
    assert all(q["ranks"]["wherein"] is not None for q in queries)
    # Each score is what the listed ranks give.
    for retriever in report["retrievers"]:
        ranks = [q["ranks"][retriever["name"]] for q in queries]
        expected = summarize([Answer(rank, (), 0, 0, 0.0) for rank in ranks])
        scores = retriever["scores"]["all"]
        assert (scores["r1"], scores["r10"], scores["mrr10"]) == pytest.approx(
            (expected.r1, expected.r10, expected.mrr)
        )
        assert scores["queries"] == 7
    assert any("Only 7 question(s) remain" in w for w in report["warnings"])
    assert "Only 7 question(s) remain, fewer than 30: too few to trust" in err
    assert snapshot(history_repo.root) == before  # nothing written into the repository


def test_eval_prints_the_funnel_and_a_table_per_kind(history_repo, capsys):
    code, out, err = cli(capsys, "eval", "--workspace", str(history_repo.root))
    assert code == 0, err
    assert f"{EXPECTED_CONSIDERED} non-merge commit(s) read" in out
    assert "7 kept as questions, 15 dropped:" in out
    assert "  2  changes more than 3 source files" in out
    assert "Gold files are checked at HEAD" in out
    assert "lexical (the question names a gold identifier or path): 1, fewer than 30" in out
    for label in ("wherein (your settings)", "BM25 over files", "grep for the words"):
        assert label in out
    assert "Traceback" not in err


def test_tiers_adds_a_row_per_tier(history_repo, capsys):
    code, out, _ = cli(capsys, "eval", "--workspace", str(history_repo.root), "--tiers", "--json")
    assert code == 0
    names = [r["name"] for r in json.loads(out)["retrievers"]]
    assert names[:4] == [
        "wherein",
        "wherein, fast tier only",
        "wherein, configured model only",
        "wherein, BM25 and signals only",
    ]


def test_compare_runs_in_a_temporary_index_and_leaves_the_users_alone(
    history_repo, own_tmp, capsys
):
    workspace = history_repo.root.resolve()
    home_before = os.environ["WHEREIN_HOME"]
    args = ("eval", "--workspace", str(workspace), "--json")
    code, out, err = cli(capsys, *args, "--compare", "walk.max_file_bytes=64")
    assert code == 0, err
    report = json.loads(out)
    compared = report["retrievers"][1]
    assert compared["name"] == "walk.max_file_bytes=64"
    assert compared["overrides"] == {"walk.max_file_bytes": "64"}
    # Every source file is over 64 bytes: the temporary index holds none, so nothing is found.
    assert compared["scores"]["all"]["r10"] == 0.0
    assert report["retrievers"][0]["scores"]["all"]["r10"] > 0
    # The user's index still holds every file (under the 64-byte cap they would be skipped),
    # it is the only index in the user's data home, and the temporary one is gone.
    assert "app/retry.py" in indexed_paths(workspace)
    assert len(list((data_home() / "workspaces").iterdir())) == 1
    assert os.environ["WHEREIN_HOME"] == home_before
    assert list(own_tmp.iterdir()) == []


def test_compare_checks_every_setting_before_anything_runs(history_repo, capsys):
    workspace = str(history_repo.root)
    code, _, err = cli(capsys, "eval", "--workspace", workspace, "--compare", "search.nope=1")
    assert code == 2
    assert "unknown setting 'search.nope'" in err and "Known keys:" in err
    code, _, err = cli(capsys, "eval", "--workspace", workspace, "--compare", "justaword")
    assert code == 2 and "is not KEY=VALUE" in err
    code, _, err = cli(
        capsys, "eval", "--workspace", workspace, "--compare", "embedding.allow_remote=true"
    )
    assert code == 2
    assert "--compare cannot set 'embedding.allow_remote'" in err
    code, _, err = cli(capsys, "eval", "--workspace", workspace, "--compare", "search.limit=-3")
    assert code == 2 and "search.limit" in err
    assert "Traceback" not in err


def test_a_temporary_directory_inside_the_workspace_is_refused(history_repo, monkeypatch, capsys):
    inside = history_repo.root / "tmp-in-repo"
    monkeypatch.setattr(tempfile, "tempdir", str(inside))
    before = snapshot(history_repo.root)
    code, out, err = cli(
        capsys,
        "eval",
        "--workspace",
        str(history_repo.root),
        "--compare",
        "search.limit=5",
    )
    assert code == 2
    assert "is inside the workspace" in err and "Set TMPDIR" in err
    assert out == ""
    assert snapshot(history_repo.root) == before


def test_outside_a_git_repository_eval_says_so_in_one_sentence(tmp_path, capsys):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "app.py").write_text("A = 1\n")
    code, out, err = cli(capsys, "eval", "--workspace", str(tmp_path / "plain"))
    assert code == 1
    assert out == ""
    assert err.startswith("wherein: ") and "is not inside a git repository" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_history_without_a_usable_commit_shows_why_and_fails(tmp_path, capsys):
    repo = GitRepo(tmp_path / "norepo")
    repo.commit("Initial import", {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    repo.commit("Release 0.1.0", {"a.py": "A = 2\n"})
    repo.commit("docs: say hello", {"README.md": "hello\n"})
    code, out, err = cli(capsys, "eval", "--workspace", str(repo.root))
    assert code == 1
    assert "3 non-merge commit(s) read" in out and "0 kept as questions" in out
    assert "release" in out and "documentation" in out
    assert "none of the 3 commit(s) read is usable as a question" in err
    assert not (tmp_path / "wherein-home").exists()  # nothing indexed for no questions


def test_a_branch_name_reaches_the_terminal_escaped(tmp_path, capsys):
    # git allows any byte past ASCII in a ref name: a bidi override, a C1 control in UTF-8.
    repo = GitRepo(tmp_path / "branch")
    repo.commit("Initial import", {"a.py": "A = 1\n"})
    repo.git("checkout", "-q", "-b", "main\u202eevil\u009b2J")
    code, out, _ = cli(capsys, "eval", "--workspace", str(repo.root))
    assert code == 1
    assert "(main\\u202eevil\\x9b2J)" in out
    assert "\u202e" not in out and "\u009b" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--commits", "0"), "--commits 0 is not allowed"),
        (("--since", "last week"), "--since 'last week' is not a date"),
    ],
)
def test_bad_options_are_usage_errors(history_repo, capsys, args, message):
    code, _, err = cli(capsys, "eval", "--workspace", str(history_repo.root), *args)
    assert code == 2
    assert message in err


def test_the_html_page_is_self_contained_and_escapes_the_history(tmp_path, capsys):
    repo = GitRepo(tmp_path / "hostile")
    repo.commit("Initial import", {"app/view.py": "def render(page):\n    return page\n"})
    repo.commit(
        'Render <script>alert("x")</script> pages as text',
        {"app/view.py": "def render(page):\n    return escape(page)\n"},
    )
    page = tmp_path / "report.html"
    code, out, err = cli(capsys, "eval", "--workspace", str(repo.root), "--html", str(page))
    assert code == 0, err
    assert f"wrote the HTML report to {page}" in err
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert "<script" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "http://" not in text and "https://" not in text
    assert "1 questions (0 lexical, 1 semantic)" in text


def test_the_page_cannot_be_written_through_a_planted_link(tmp_path, capsys, history_repo):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    link = tmp_path / "report.html"
    os.symlink(target, link)
    code, _, err = cli(capsys, "eval", "--workspace", str(history_repo.root), "--html", str(link))
    assert code == 2
    assert "Cannot write the HTML report" in err
    assert target.read_text() == "keep me\n"


def test_the_page_opens_in_headless_chromium_without_a_request_or_an_error(tmp_path, capsys):
    found = find_browser()
    if found is None:
        pytest.skip("chromium is not installed: apt-get install chromium (as .ci/run does)")
    repo = GitRepo(tmp_path / "page")
    repo.commit("Initial import", {"app/view.py": "def render(page):\n    return page\n"})
    repo.commit(
        "Render <img src=x onerror=alert(1)> pages as text",
        {"app/view.py": "def render(page):\n    return escape(page)\n"},
    )
    page = tmp_path / "report.html"
    assert cli(capsys, "eval", "--workspace", str(repo.root), "--html", str(page))[0] == 0
    with Browser(found, tmp_path / "profile") as browser:
        browser.open_page(1200, 900)
        browser.call("Page.navigate", {"url": page.as_uri()})
        browser.wait_for_event("Page.loadEventFired")
        probe = json.loads(
            browser.evaluate(
                "JSON.stringify({svg: document.querySelectorAll('svg rect').length,"
                " images: document.images.length, h1: document.querySelector('h1').textContent})"
            )
        )
        events = list(browser.events)
    requests = [
        e["params"]["request"]["url"]
        for e in events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert requests == [page.as_uri()]
    errors = [
        e
        for e in events
        if e.get("method") in ("Runtime.exceptionThrown", "Log.entryAdded")
        and (e["method"] == "Runtime.exceptionThrown" or e["params"]["entry"]["level"] == "error")
    ]
    assert errors == []
    assert probe["images"] == 0  # the subject's <img> is text, not an element
    assert probe["svg"] == 6  # a bar each for wherein, bm25 and grep: all, and semantic
    assert probe["h1"].startswith("How well search works on page")


def test_a_history_kept_outside_the_workspace_is_said_to_be(history_repo, tmp_path, capsys):
    # A `.git` file may point anywhere (a worktree's, a submodule's, or one a copied
    # repository planted): eval mines that repository's commits, and says whose they are.
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    (elsewhere / ".git").write_text(f"gitdir: {history_repo.root / '.git'}\n")
    # Its commits' files are not in this folder, so no question is left: exit 1, said why.
    code, _, err = cli(capsys, "eval", "--workspace", str(elsewhere), "--json")
    assert code == 1
    kept_in = f"The history mined is kept in {history_repo.root / '.git'}, outside {elsewhere}"
    assert kept_in in err, err
    code, out, _ = cli(capsys, "eval", "--workspace", str(history_repo.root), "--json")
    assert not [w for w in json.loads(out)["warnings"] if "is kept in" in w]
