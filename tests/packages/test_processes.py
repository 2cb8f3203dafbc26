"""Real processes building one shared package index: two at once wait on one lock and embed
it once; `kill -9` mid-build leaves a half-built index that is never searched and is resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from tests.embedding.fake_server import FakeEmbeddingServer
from tests.helpers import write_tree
from tests.index.processes import CHILD_TIMEOUT_S, run_wherein, wherein_command
from tests.packages.sites import add_distribution, make_venv
from wherein.index.location import data_home
from wherein.packages.shared import COMPLETE_FILE_NAME

FILE_COUNT = 1500
SHARED = "packages/pypi/biglib-1.0"


def big_workspace(root):
    workspace = write_tree(root, {"app.py": "import biglib\n"})
    body = "def function_{0}(value):\n    '''Step {0}.'''\n    return value + {0}\n"
    files = {f"biglib/m{i}.py": body.format(i) for i in range(FILE_COUNT)}
    add_distribution(make_venv(workspace), "biglib", "1.0", files)
    return workspace


@pytest.fixture
def workspaces(tmp_path, monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return big_workspace(tmp_path / "one"), big_workspace(tmp_path / "two")


def start_add(workspace, env):
    return subprocess.Popen(
        wherein_command("roots", "add", "biglib", "--json", "--workspace", str(workspace)),
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_two_workspaces_building_one_package_at_once_embed_it_once(workspaces):
    with FakeEmbeddingServer() as server:
        env = {
            "WHEREIN_EMBEDDING_PROVIDER": "ollama",
            "WHEREIN_EMBEDDING_API_BASE": server.url,
            "WHEREIN_EMBEDDING_MODEL": "nomic-embed-text",
        }
        procs = [start_add(workspace, env) for workspace in workspaces]
        outputs = [proc.communicate(timeout=CHILD_TIMEOUT_S) for proc in procs]
        assert [p.returncode for p in procs] == [0, 0], [e.decode() for _, e in outputs]
        builds = [json.loads(out)["packages"][0] for out, _ in outputs]
        assert sorted(b["built"] for b in builds) == [False, True]
        texts = [t for r in server.requests if r.path == "/api/embed" for t in r.body["input"]]
    marker = json.loads((data_home() / SHARED / COMPLETE_FILE_NAME).read_text())
    assert marker["files"] == FILE_COUNT
    chunk_texts = [t for t in texts if "function_" in t]
    assert len(chunk_texts) == len(set(chunk_texts)) == marker["chunks"]  # each once


def test_kill_9_mid_build_is_never_searched_and_the_next_build_resumes(workspaces):
    one, _ = workspaces
    env = {"WHEREIN_EMBEDDING_PROVIDER": "static"}
    proc = start_add(one, env)
    database = data_home() / SHARED / "index.db"
    deadline = time.monotonic() + CHILD_TIMEOUT_S  # a hang guard, not a speed check
    files = 0
    while not files and time.monotonic() < deadline:
        assert proc.poll() is None, "the build finished before the test could interrupt it"
        if database.exists():
            try:
                conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0.1)
                (files,) = conn.execute("SELECT count(*) FROM files").fetchone()
                conn.close()
            except sqlite3.Error:
                files = 0
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=CHILD_TIMEOUT_S)
    assert 0 < files < FILE_COUNT
    assert not (data_home() / SHARED / COMPLETE_FILE_NAME).exists()
    # The workspace file was written before the build: its search names the package, but a
    # half-built index is not searched.
    found = run_wherein("search", "function_1234", "--json", "--workspace", str(one), env=env)
    payload = json.loads(found.stdout)
    assert all(not r["path"].startswith("biglib@") for r in payload["results"])
    assert any("biglib@1.0 has no shared index yet" in w for w in payload["warnings"])
    rerun = run_wherein("index", "--workspace", str(one), env=env)
    assert rerun.returncode == 0, rerun.stderr.decode()
    marker = json.loads((data_home() / SHARED / COMPLETE_FILE_NAME).read_text())
    assert marker["files"] == FILE_COUNT
    found = run_wherein("search", "function_1234", "--json", "--workspace", str(one), env=env)
    assert json.loads(found.stdout)["results"][0]["path"] == "biglib@1.0/biglib/m1234.py"
