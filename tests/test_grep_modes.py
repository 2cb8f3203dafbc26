"""grep-style search through the real CLI: -l, --jsonl, --lines, the filters, exact and regex.

Every assertion reads what the command printed; the index is real SQLite, the embedder the
in-process static one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.helpers import cli, write_tree
from tests.index.processes import CHILD_TIMEOUT_S, assert_one_sentence, wherein_command
from wherein import text_match
from wherein.cli import main
from wherein.index.location import data_home

TOP_KEYS = set(
    "query workspace scope results pending warnings usage expansion rerank tiers".split()
)
# Enough tests that, unfiltered, they take every slot of every ranker's candidates.
TEST_FILES = 150


def _function(name: str, body: str, lines: int = 18) -> str:
    """A function long enough to be a chunk of its own (the chunker merges to ~24 lines)."""
    filler = "".join(f"    step_{i} = {i}  # {body}\n" for i in range(lines))
    return f"def {name}(call, attempts=3):\n{filler}    return call()\n\n\n"


REPO: dict[str, str] = {
    "app/retry.py": _function("retry_with_backoff", "wait longer after a failure")
    + _function("retry_forever", "never give up on a retry"),
    "app/routing.py": "class Router:\n    def add_route(self, path, handler):\n"
    "        self.routes[path] = handler\n",
    "web/client.ts": "export function retryFetch(url: string) {\n  return fetch(url);\n}\n",
    "docs/guide.md": "# Guide\n\nA retry waits longer after each failure.\n",
    "notes.txt": "Retry_With is spelled with capitals only here.\n",
    **{
        f"tests/test_retry_{i:03}.py": (
            f"def test_retry_backoff_{i}():\n"
            f"    # retry backoff failure retry backoff failure retry backoff failure\n"
            f"    assert retry_with_backoff(lambda: {i}) == {i}\n"
        )
        for i in range(TEST_FILES)
    },
}


@pytest.fixture
def static(monkeypatch) -> None:
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


@pytest.fixture
def repo(tmp_path, static, capsys) -> Path:
    root = write_tree(tmp_path / "repo", REPO).resolve()
    assert main(["index", "--workspace", str(root)]) == 0
    capsys.readouterr()
    return root


def search_json(capsys, repo: Path, *args: str) -> dict:
    code, out, err = cli(capsys, "search", *args, "--json", "--workspace", str(repo))
    assert code == 0, err
    return json.loads(out)


def paths(payload: dict) -> list[str]:
    return [result["path"] for result in payload["results"]]


# -- output forms ------------------------------------------------------------------------------


def test_files_only_prints_each_file_once_in_rank_order(capsys, repo):
    asked = ("retry", "--exclude", "tests/", "--limit", "12")
    ranked = paths(search_json(capsys, repo, *asked))
    assert len(set(ranked)) < len(ranked)  # app/retry.py holds two results: -l merges them
    code, out, err = cli(capsys, "search", *asked, "-l", "--workspace", str(repo))
    assert code == 0, err
    assert out.splitlines() == list(dict.fromkeys(ranked))


def test_jsonl_prints_the_json_results_one_per_line(capsys, repo):
    expected = search_json(capsys, repo, "retry after a failure", "--limit", "5")["results"]
    code, out, err = cli(
        capsys,
        "search",
        "retry after a failure",
        "--jsonl",
        "--limit",
        "5",
        "--workspace",
        str(repo),
    )
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 5
    assert [json.loads(line) for line in lines] == expected


@pytest.mark.parametrize("flag", ["--lines", "-C"])
def test_lines_cuts_every_excerpt_to_n_lines(capsys, repo, flag):
    full = search_json(capsys, repo, "retry_with_backoff", "--limit", "3")["results"]
    assert any(len(r["excerpt"].splitlines()) > 2 for r in full)
    cut = search_json(capsys, repo, "retry_with_backoff", "--limit", "3", flag, "2")["results"]
    assert [r["path"] for r in cut] == [r["path"] for r in full]
    for before, after in zip(full, cut, strict=True):
        assert after["excerpt"].split("\n") == before["excerpt"].split("\n")[:2]
        assert after["truncated"] == (len(before["excerpt"].split("\n")) > 2 or before["truncated"])
    code, out, _ = cli(capsys, "search", "retry_with_backoff", flag, "2", "--workspace", str(repo))
    assert code == 0
    assert "(cut; read the file for more)" in out


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--lines", "0"], "--lines 0"),
        (["--lines", "2001"], "--lines 2001"),
        (["--json", "--jsonl"], "not allowed with"),
        (["-l", "--json"], "not allowed with"),
        (["--lang", "cobol"], "'cobol'"),
        (["--glob", "!"], "'!'"),
        (["--exclude", "\\"], "gitignore"),
        (["--exact", "x", "--regex", "y"], "not allowed with"),
    ],
)
def test_bad_grep_options_exit_2_with_one_sentence_and_create_nothing(
    capsys, tmp_path, args, named
):
    root = write_tree(tmp_path / "plain", {"a.py": "x = 1\n"})
    code, out, err = cli(capsys, "search", "retry", *args, "--workspace", str(root))
    assert code == 2 and out == ""
    assert named in assert_one_sentence(err)
    assert not data_home().exists()


def test_search_needs_a_query_or_a_match(capsys, tmp_path):
    root = write_tree(tmp_path / "plain", {"a.py": "x = 1\n"})
    code, out, err = cli(capsys, "search", "--workspace", str(root))
    assert code == 2 and out == ""
    assert "query is empty" in assert_one_sentence(err) and "--exact" in err
    assert not data_home().exists()


def test_json_keeps_its_exact_keys_with_every_new_option(capsys, repo):
    payload = search_json(
        capsys,
        repo,
        "retry",
        "--lang",
        "py",
        "--glob",
        "app/",
        "--exclude",
        "tests/",
        "--lines",
        "3",
        "--exact",
        "retry",
    )
    assert set(payload) == TOP_KEYS
    assert payload["results"]


# -- filters ------------------------------------------------------------------------------------


def test_unfiltered_the_tests_take_the_top(capsys, repo):
    """The premise of the next test: without a filter, tests/ fills the first results."""
    ranked = paths(search_json(capsys, repo, "retry backoff failure", "--limit", "4"))
    assert all(path.startswith("tests/") for path in ranked)


def test_a_filter_that_removes_the_top_hits_still_returns_the_limit(capsys, repo):
    ranked = paths(
        search_json(capsys, repo, "retry backoff failure", "--exclude", "tests/", "--limit", "4")
    )
    assert len(ranked) == 4
    assert not any(path.startswith("tests/") for path in ranked)
    assert ranked[0] == "app/retry.py"


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["--lang", "typescript"], {"web/client.ts"}),
        (["--lang", "ts"], {"web/client.ts"}),
        (["--lang", "PY", "--exclude", "tests/"], {"app/retry.py", "app/routing.py"}),
        (["--lang", "markdown", "--lang", "text"], {"docs/guide.md", "notes.txt"}),
        (["--glob", "*.ts"], {"web/client.ts"}),
        (
            ["--glob", "app/", "--glob", "/docs/*.md"],
            {"app/retry.py", "app/routing.py", "docs/guide.md"},
        ),
        (["--glob", "*.py", "--exclude", "test_*.py"], {"app/retry.py", "app/routing.py"}),
        (["--path", "app", "--exclude", "routing.py"], {"app/retry.py"}),
        (["--path", "tests", "--lang", "ts"], set()),
    ],
)
def test_filters_keep_only_the_files_they_allow(capsys, repo, args, allowed):
    ranked = paths(search_json(capsys, repo, "retry", "--limit", "50", *args))
    assert set(ranked) == allowed  # every allowed file has a chunk the query reaches by meaning


# -- exact and regex ------------------------------------------------------------------------------


def test_exact_ranks_only_chunks_holding_the_literal(capsys, repo):
    payload = search_json(capsys, repo, "-F", "retry_with_backoff(lambda: 7)", "--limit", "20")
    assert paths(payload) == ["tests/test_retry_007.py"]
    assert payload["query"] == "retry_with_backoff(lambda: 7)"
    assert "retry_with_backoff(lambda: 7)" in payload["results"][0]["excerpt"]


def test_exact_is_case_sensitive_and_finds_a_part_of_a_word(capsys, repo):
    assert paths(search_json(capsys, repo, "--exact", "Retry_With")) == ["notes.txt"]
    assert paths(search_json(capsys, repo, "--exact", "RETRY_WITH")) == []
    inner = paths(search_json(capsys, repo, "--exact", "etry_forev"))
    assert inner == ["app/retry.py"]


def test_exact_with_a_query_ranks_the_matches_by_the_query(capsys, repo):
    payload = search_json(
        capsys, repo, "wait longer after a failure", "--exact", "call()", "--limit", "5"
    )
    assert paths(payload)[0] == "app/retry.py"
    assert all("call()" in r["excerpt"] or r["truncated"] for r in payload["results"])
    assert payload["query"] == "wait longer after a failure"


def test_exact_text_output_is_the_search_excerpt(capsys, repo):
    code, out, err = cli(capsys, "search", "-F", "lambda: 42)", "--workspace", str(repo))
    assert code == 0, err
    assert out.splitlines()[0].startswith("tests/test_retry_042.py:1-3")
    assert "3 |     assert retry_with_backoff(lambda: 42) == 42" in out


def test_regex_ranks_chunks_the_pattern_matches(capsys, repo):
    payload = search_json(capsys, repo, "--regex", r"lambda: 1[0-2]\)", "--limit", "20")
    assert sorted(paths(payload)) == [f"tests/test_retry_{i:03}.py" for i in (10, 11, 12)]
    assert paths(search_json(capsys, repo, "--regex", r"(?i)retry_with is")) == ["notes.txt"]


@pytest.mark.parametrize(
    ("pattern", "named"),
    [("(unclosed", "not a regular expression"), ("x*", "matches an empty string")],
)
def test_a_bad_regex_exits_2_naming_it(capsys, repo, pattern, named):
    code, out, err = cli(capsys, "search", "--regex", pattern, "--workspace", str(repo))
    assert code == 2 and out == ""
    assert named in assert_one_sentence(err)


def test_a_backtracking_regex_is_stopped_and_the_timer_restored(capsys, repo, monkeypatch):
    (repo / "slow.txt").write_text("a" * 40 + "\n")
    monkeypatch.setattr(text_match, "REGEX_BUDGET_S", 0.5)
    before = signal.getsignal(signal.SIGALRM)
    code, out, err = cli(capsys, "search", "--regex", "(a+)+b", "--workspace", str(repo))
    assert code == 2 and out == ""
    assert "was stopped" in assert_one_sentence(err) and "(a+)+b" in err
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    # The same pattern over text it does not backtrack on answers.
    assert paths(search_json(capsys, repo, "--regex", "(a+)+!", "--path", "app")) == []


# -- a closed pipe ---------------------------------------------------------------------------------


@pytest.mark.parametrize("form", [[], ["--jsonl"], ["-l"], ["--json"]])
def test_a_closed_pipe_ends_the_command_quietly_with_0(repo, form):
    """`wherein search ... | head -1`, made certain: the reader is gone before the first write."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            wherein_command("search", "retry", "--limit", "20", *form, "--workspace", str(repo)),
            stdout=writer,
            stderr=subprocess.PIPE,
            timeout=CHILD_TIMEOUT_S,
        )
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (0, b"")


def test_head_reads_the_first_result_and_the_command_exits_0(repo):
    head = subprocess.Popen(["head", "-1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert head.stdin is not None
    done = subprocess.run(
        wherein_command(
            "search", "retry", "--limit", "50", "--lines", "40", "--workspace", str(repo)
        ),
        stdout=head.stdin,
        stderr=subprocess.PIPE,
        timeout=CHILD_TIMEOUT_S,
    )
    head.stdin.close()
    assert head.stdout is not None
    first = head.stdout.read()
    head.stdout.close()
    assert head.wait(timeout=CHILD_TIMEOUT_S) == 0
    assert (done.returncode, done.stderr) == (0, b"")
    assert first.decode().count("\n") == 1 and ":" in first.decode()
