"""The `wherein` command: exit codes, one-sentence errors, the JSON contract, touching nothing."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import DEMO_REPO, cli, write_tree
from tests.index.processes import (
    assert_one_sentence,
    assert_permissions_apply,
    permission_prefix,
    run_wherein,
)
from wherein.index.location import INDEX_FILE_NAME, data_home, index_dir
from wherein.index.migrations import MIGRATIONS
from wherein.index.store import Store

REPO = DEMO_REPO
TOP_KEYS = set(
    "query workspace scope results pending warnings usage expansion rerank tiers".split()
)
RESULT_KEYS = {
    "rank",
    "path",
    "root",
    "source_path",
    "start_line",
    "end_line",
    "symbols",
    "language",
    "score",
    "similarity",
    "stale",
    "truncated",
    "excerpt",
}


@pytest.fixture
def repo(tmp_path) -> Path:
    return write_tree(tmp_path / "repo", REPO)


@pytest.fixture
def static(monkeypatch) -> None:
    """The in-process static embedder, for in-process runs where the model is not the point."""
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")


def index_path(workspace: Path) -> Path:
    return index_dir(workspace.resolve()) / INDEX_FILE_NAME


def rows(path: Path) -> dict[str, list]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            "files": conn.execute("SELECT path, sha256 FROM files ORDER BY path").fetchall(),
            "chunks": conn.execute("SELECT text_hash, text FROM chunks ORDER BY id").fetchall(),
            "vectors": conn.execute("SELECT text_hash FROM vectors ORDER BY 1").fetchall(),
        }
    finally:
        conn.close()


# -- usage errors: exit 2, one sentence -------------------------------------------------


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["search", "router", "--limit", "0", "--workspace", "{repo}"], "--limit 0"),
        (["search", "router", "--limit", "-1", "--workspace", "{repo}"], "--limit -1"),
        (["search", "router", "--limit", "abc"], "'abc'"),
        (["search", "router", "--limit", "100000", "--workspace", "{repo}"], "100000"),
        (["frobnicate"], "'frobnicate'"),
        (["search", "", "--workspace", "{repo}"], "query is empty"),
        (["search", " \t\n", "--workspace", "{repo}"], "query is empty"),
        (["search"], "query"),
        ([], "command"),
        (["config", "set", "search.limit"], "value"),
        (["search", "router", "--bogus"], "See 'wherein search --help'"),
        (["search", "router", "--workspace", ""], "--workspace is empty"),
        (["search", "\udcff\udcfe", "--workspace", "{repo}"], "no readable text"),
        (["index", "{repo}"], "goes after --workspace). See 'wherein index --help'"),
    ],
)
def test_usage_errors_exit_2_with_one_sentence_and_create_nothing(capsys, repo, args, named):
    args = [str(repo) if arg == "{repo}" else arg for arg in args]
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert named in assert_one_sentence(err)
    assert not data_home().exists()


def test_usage_error_from_the_installed_command(repo):
    done = run_wherein("search", "router", "--limit", "0", "--workspace", str(repo))
    assert done.returncode == 2
    assert "--limit 0" in assert_one_sentence(done.stderr)
    hint = run_wherein("frobnicate")
    assert hint.returncode == 2
    assert assert_one_sentence(hint.stderr).endswith("See 'wherein --help'.")


@pytest.mark.parametrize("command", ["index", "search", "status", "serve", "doctor"])
def test_a_missing_workspace_or_a_file_is_a_usage_error_naming_it(capsys, tmp_path, command):
    query = ["anything"] if command == "search" else []
    missing = tmp_path / "nowhere"
    code, _, err = cli(capsys, command, *query, "--workspace", str(missing))
    assert code == 2
    assert str(missing) in assert_one_sentence(err) and "does not exist" in err
    afile = tmp_path / "notes.txt"
    afile.write_text("x")
    code, _, err = cli(capsys, command, *query, "--workspace", str(afile))
    assert code == 2
    assert str(afile) in assert_one_sentence(err) and "not a directory" in err
    assert not data_home().exists()


# -- search --json ------------------------------------------------------------------------


def test_search_json_matches_the_contract_key_set_exactly(repo):
    """The real default model, through the installed command."""
    done = run_wherein("search", "wait longer after a failure", "--json", "--workspace", str(repo))
    assert done.returncode == 0, done.stderr.decode()
    payload = json.loads(done.stdout.decode("utf-8"))
    assert set(payload) == TOP_KEYS
    assert set(payload["scope"]) == {"focus", "resolved_by"}
    assert payload["scope"] == {"focus": None, "resolved_by": "workspace"}
    assert set(payload["pending"]) == {"files", "chunks"}
    assert set(payload["usage"]) == {"returned_chars", "source_chars"}
    assert isinstance(payload["warnings"], list)
    assert payload["results"], payload
    for rank, result in enumerate(payload["results"], start=1):
        assert set(result) == RESULT_KEYS
        assert result["rank"] == rank
        assert result["source_path"] is None and result["root"] == str(repo.resolve())
        assert isinstance(result["symbols"], list) and isinstance(result["stale"], bool)
        assert 1 <= result["start_line"] <= result["end_line"]
    assert payload["results"][0]["path"] == "app/retry.py"
    assert isinstance(payload["results"][0]["similarity"], float)


def test_search_json_stays_valid_with_odd_file_names(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    with open(os.fsencode(root) + b"/two\nlines.py", "w") as handle:
        handle.write("def zebra_crossing():\n    return 1\n")
    with open(os.fsencode(root) + b"/bad\xffname.py", "w") as handle:
        handle.write("def okapi_grazing():\n    return 2\n")
    done = run_wherein(
        "search",
        "zebra_crossing okapi_grazing",
        "--json",
        "--workspace",
        str(root),
        env={"WHEREIN_EMBEDDING_PROVIDER": "static"},
    )
    assert done.returncode == 0, done.stderr.decode()
    payload = json.loads(done.stdout.decode("utf-8"))  # strict UTF-8: no stray bytes
    assert {r["path"] for r in payload["results"]} == {"two\nlines.py", "bad\\xffname.py"}


def test_search_text_output_with_odd_file_names(capsys, tmp_path, static):
    root = tmp_path / "repo"
    root.mkdir()
    with open(os.fsencode(root) + b"/bad\xffname.py", "w") as handle:
        handle.write("def okapi_grazing():\n    return 2\n")
    code, out, err = cli(capsys, "search", "okapi_grazing", "--workspace", str(root))
    assert code == 0, err
    assert "bad\\xffname.py:1-2" in out


def test_empty_workspace_indexes_and_searches_to_no_results(capsys, tmp_path, static):
    root = tmp_path / "empty"
    root.mkdir()
    code, out, err = cli(capsys, "index", "--workspace", str(root))
    assert code == 0, err
    assert out.startswith("0 files seen, 0 changed, 0 removed, 0 chunks embedded")
    code, out, err = cli(capsys, "search", "anything", "--workspace", str(root))
    assert (code, out.strip(), err) == (0, "No results.", "")


def test_results_go_to_stdout_and_the_pending_note_to_stderr(capsys, repo):
    """A first search leaves the configured model's vectors pending: saying so is a note,
    not a result, so a pipe of the results never holds it."""
    code, out, err = cli(capsys, "search", "retry with backoff", "--workspace", str(repo))
    assert code == 0, err
    assert "have no vector from the configured model yet" in err
    assert "have no vector" not in out and " | " in out
    code, out, err = cli(capsys, "search", "retry", "--workspace", str(repo), "--files-only")
    assert "have no vector from the configured model yet" in err and "have no vector" not in out


# -- status touches nothing -----------------------------------------------------------------


def test_status_json_without_an_index_creates_nothing(capsys, repo):
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    code, out, err = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0, err
    payload = json.loads(out)
    assert payload["exists"] is False
    assert payload["index_path"] == str(index_path(repo))
    assert not data_home().exists()
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_status_json_leaves_an_existing_index_unchanged(capsys, repo, static):
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    path = index_path(repo)
    before = path.read_bytes()
    code, out, _ = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0
    payload = json.loads(out)
    assert payload["files"] == 3 and payload["pending"] == {"files": 0, "chunks": 0}
    assert path.read_bytes() == before


def test_status_shows_no_fast_tier_when_the_configured_model_is_the_fast_one(capsys, repo, static):
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    code, out, _ = cli(capsys, "status", "--workspace", str(repo))
    assert code == 0
    assert "embedder   static:" in out
    assert "fast tier" not in out and "None" not in out


@pytest.mark.parametrize("name", ["home#1", "home?x=1", "home%20"])
def test_status_and_indexes_read_an_index_whose_path_looks_like_uri_syntax(
    capsys, repo, static, tmp_path, monkeypatch, name
):
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / name))
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    code, out, _ = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0
    payload = json.loads(out)
    assert payload["files"] == 3 and "error" not in payload
    code, out, _ = cli(capsys, "indexes", "--json")
    assert code == 0 and "cannot be opened" not in out


# -- the data directory: unwritable, full, broken, newer ---------------------------------------


@pytest.mark.parametrize("command", [["index"], ["search", "router"]])
def test_wherein_home_that_cannot_be_a_directory_exits_1(
    capsys, repo, tmp_path, monkeypatch, command
):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("WHEREIN_HOME", str(blocker / "home"))
    code, _, err = cli(capsys, *command, "--workspace", str(repo))
    assert code == 1
    sentence = assert_one_sentence(err)
    assert str(blocker / "home") in sentence and "WHEREIN_HOME" in sentence


@pytest.mark.parametrize("home", ["a-file", "a-file/home"])
def test_status_with_a_wherein_home_that_is_no_directory_says_no_index(
    capsys, repo, tmp_path, monkeypatch, home
):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("WHEREIN_HOME", str(tmp_path / home))
    code, out, err = cli(capsys, "status", "--json", "--workspace", str(repo))
    assert code == 0, err
    assert json.loads(out)["exists"] is False


def test_wherein_home_without_write_permission_exits_1(repo, tmp_path):
    prefix = permission_prefix()
    home = tmp_path / "readonly-home"
    home.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("x")
    os.chmod(secret, 0)
    os.chmod(home, 0o555)
    try:
        assert_permissions_apply(prefix, secret)
        done = run_wherein(
            "index", "--workspace", str(repo), prefix=prefix, env={"WHEREIN_HOME": str(home)}
        )
        assert done.returncode == 1
        sentence = assert_one_sentence(done.stderr)
        assert str(home) in sentence and "Permission denied" in sentence
        assert "WHEREIN_HOME" in sentence
        assert list(home.iterdir()) == []
    finally:
        os.chmod(home, 0o755)


def test_a_read_only_data_home_is_searched_as_it_is_and_index_says_why_not(repo, tmp_path):
    """A data home that may not be written (a read-only mount, a folder without write
    permission) still holds an index: a search reads it as `status` does, saying so; only
    `wherein index`, which must write, stops."""
    prefix = permission_prefix()
    home = tmp_path / "home"
    env = {"WHEREIN_HOME": str(home)}
    built = run_wherein("search", "retry", "--workspace", str(repo), env=env)
    assert built.returncode == 0, built.stderr.decode()
    probe = tmp_path / "secret"
    probe.write_text("x")
    probe.chmod(0)
    folders = [home, *(p for p in home.rglob("*") if p.is_dir())]
    for path in [*home.rglob("*"), home]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        assert_permissions_apply(prefix, probe)
        found = run_wherein(
            "search",
            "retry with backoff",
            "--json",
            "--workspace",
            str(repo),
            prefix=prefix,
            env={"WHEREIN_HOME": str(home)},
        )
        assert found.returncode == 0, found.stderr.decode()
        payload = json.loads(found.stdout)
        assert payload["results"][0]["path"] == "app/retry.py"
        assert any("Cannot write the index" in w for w in payload["warnings"])
        refused = run_wherein(
            "index", "--workspace", str(repo), prefix=prefix, env={"WHEREIN_HOME": str(home)}
        )
        assert refused.returncode == 1
        assert "Cannot write the index" in assert_one_sentence(refused.stderr)
    finally:
        for folder in folders:
            folder.chmod(0o755)


def test_disk_full_during_index_exits_1_and_keeps_the_previous_index(
    capsys, repo, static, monkeypatch
):
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    before = rows(index_path(repo))
    (repo / "app/retry.py").write_text(
        "def retry_forever(call):\n    while True:\n        call()\n"
    )
    (repo / "app/new.py").write_text("def brand_new():\n    pass\n")
    real_write = Store.write_files
    calls = []

    def full_disk(self, conn, files):
        calls.append([record.path for record in files])
        real_write(self, conn, files[:1])  # the first file goes in; the rest finds no space
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "write_files", full_disk)
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 1 and out == ""
    sentence = assert_one_sentence(err)
    assert str(index_path(repo)) in sentence and "disk is full" in sentence
    assert rows(index_path(repo)) == before  # the batch rolled back whole

    # Still full: a search answers from the index as it was, and says why it is behind.
    calls.clear()
    code, out, err = cli(capsys, "search", "retry_with_backoff", "--json", "--workspace", str(repo))
    assert code == 0, err
    payload = json.loads(out)
    assert payload["results"][0]["path"] == "app/retry.py"
    assert "retry_with_backoff" in payload["results"][0]["excerpt"]
    assert any("disk is full" in warning for warning in payload["warnings"])
    assert rows(index_path(repo)) == before

    monkeypatch.setattr(Store, "write_files", real_write)
    code, out, err = cli(capsys, "search", "retry_forever", "--json", "--workspace", str(repo))
    assert code == 0, err
    assert json.loads(out)["results"][0]["path"] == "app/retry.py"


def test_a_broken_index_is_moved_aside_and_rebuilt_with_a_message(capsys, repo, static):
    path = index_path(repo)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00garbage" * 1000)
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0
    assert "was unreadable" in err and "moved it to" in err and str(path) in err
    assert out.startswith("3 files seen, 3 changed")
    (aside,) = path.parent.glob("index.db.broken-*")
    assert aside.read_bytes() == b"\x00garbage" * 1000


def test_an_index_from_a_newer_version_is_refused(capsys, repo, static):
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    path = index_path(repo)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    for command in (["index"], ["search", "router"]):
        code, out, err = cli(capsys, *command, "--workspace", str(repo))
        assert code == 1 and out == ""
        sentence = assert_one_sentence(err)
        assert str(path) in sentence and "newer wherein" in sentence


def test_changing_the_embedder_discards_vectors_with_a_message(capsys, repo, static, monkeypatch):
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    vectors = len(rows(index_path(repo))["vectors"])
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "minilm")
    code, out, err = cli(capsys, "index", "--workspace", str(repo))
    assert code == 0
    assert "embedder changed from static:" in err and "to minilm:" in err
    assert f"discarded {vectors} vectors" in err
    assert f"{vectors} chunks embedded" in out
