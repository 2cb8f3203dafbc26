"""Real processes against one index: two `wherein index` at once, and `kill -9` mid-run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.index.processes import CHILD_TIMEOUT_S, run_wherein, wherein_command
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import refresh_index
from wherein.index.store import open_store
from wherein.workspace import Root

# Enough files for several commits (refresh commits every 200 files), few enough to stay quick.
FILE_COUNT = 2000
# The in-process static embedder keeps the full re-index to seconds; the model is not the point.
ENV = {"WHEREIN_EMBEDDING_PROVIDER": "static"}


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("big") / "repo"
    for i in range(FILE_COUNT):
        path = root / f"pkg{i // 500}" / f"f{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def func_{i}(value):\n    return value + {i}\n")
    return root


def index_contents(path: Path) -> dict[str, list]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            "files": conn.execute(
                "SELECT path, sha256, skipped FROM files ORDER BY path"
            ).fetchall(),
            "chunks": conn.execute(
                "SELECT f.path, c.start_line, c.end_line, c.text_hash FROM chunks c "
                "JOIN files f ON f.id = c.file_id ORDER BY 1, 2"
            ).fetchall(),
        }
    finally:
        conn.close()


@pytest.fixture(scope="module")
def clean_index(big_repo, tmp_path_factory) -> dict[str, list]:
    """What an uninterrupted index of `big_repo` holds (files and chunks; vectors aside)."""
    path = tmp_path_factory.mktemp("clean") / INDEX_FILE_NAME
    store = open_store(path)
    refresh_index(store, [Root(big_repo.resolve())], max_file_bytes=1_048_576)
    store.close()
    contents = index_contents(path)
    assert len(contents["files"]) == FILE_COUNT
    return contents


def start_index(repo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        wherein_command("index", "--workspace", str(repo)),
        env={**os.environ, **ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for_first_commit(path: Path, proc: subprocess.Popen[bytes]) -> int:
    """Poll the index read-only until some files are committed; returns how many."""
    deadline = time.monotonic() + CHILD_TIMEOUT_S  # a hang guard, not a speed check
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the index finished before the test could interrupt it"
        if path.exists():
            try:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
                try:
                    (files,) = conn.execute("SELECT count(*) FROM files").fetchone()
                finally:
                    conn.close()
            except sqlite3.Error:
                files = 0  # not created yet, or mid-creation
            if files:
                return files
        time.sleep(0.005)
    pytest.fail(f"no commit reached {path} within {CHILD_TIMEOUT_S} s")


def assert_complete_and_equal(path: Path, clean: dict[str, list]) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        pending = conn.execute(
            "SELECT count(*) FROM chunks c "
            "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.text_hash = c.text_hash)"
        ).fetchone()[0]
        assert pending == 0
    finally:
        conn.close()
    assert index_contents(path) == clean


def test_kill_9_mid_index_keeps_a_usable_index_that_a_rerun_completes(big_repo, clean_index):
    path = index_dir(big_repo.resolve()) / INDEX_FILE_NAME
    proc = start_index(big_repo)
    wait_for_first_commit(path, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=CHILD_TIMEOUT_S)
    assert proc.returncode == -signal.SIGKILL

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    files, chunks, vectors = conn.execute(
        "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks), "
        "(SELECT count(*) FROM vectors)"
    ).fetchone()
    conn.close()
    assert files > 0 and (files < FILE_COUNT or vectors < chunks)  # it really was cut short

    found = run_wherein(
        "search",
        "func_1234",
        "--json",
        "--workspace",
        str(big_repo),
        env={**ENV, "WHEREIN_SEARCH_COLD_BUDGET_S": "0"},
    )
    assert found.returncode == 0, found.stderr.decode()
    payload = json.loads(found.stdout)
    assert payload["results"][0]["path"] == "pkg2/f1234.py"
    assert payload["pending"]["chunks"] > 0  # a zero budget embeds nothing and says so

    rerun = run_wherein("index", "--workspace", str(big_repo), env=ENV)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert rerun.stdout.decode().startswith(f"{FILE_COUNT} files seen, ")
    assert_complete_and_equal(path, clean_index)


def test_two_index_processes_at_once_both_finish_and_the_second_waits(big_repo, clean_index):
    path = index_dir(big_repo.resolve()) / INDEX_FILE_NAME
    first = start_index(big_repo)
    wait_for_first_commit(path, first)
    second = start_index(big_repo)
    out_first, err_first = first.communicate(timeout=CHILD_TIMEOUT_S)
    out_second, err_second = second.communicate(timeout=CHILD_TIMEOUT_S)
    assert first.returncode == 0, err_first.decode()
    assert second.returncode == 0, err_second.decode()
    assert "another process is indexing" in err_second.decode()
    assert "waiting for it to finish" in err_second.decode()
    assert out_first.decode().startswith(f"{FILE_COUNT} files seen, {FILE_COUNT} changed")
    # The second ran after the first and found everything done.
    assert out_second.decode().startswith(f"{FILE_COUNT} files seen, 0 changed, 0 removed, 0 ")
    assert_complete_and_equal(path, clean_index)
