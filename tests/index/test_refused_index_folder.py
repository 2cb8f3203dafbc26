"""An index folder its user may not enter (mode 000): every command says so in one sentence
that names the folder and the permission, and `serve` still starts and answers.

Before, `search`, `index` and `status` ended in a PermissionError traceback, `serve` died
before its first answer, and a folder that may not be written was blamed on a full disk.
Permission bits bind root only without its capabilities (`tests.index.processes`).
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MCP_INITIALIZE
from tests.index.processes import (
    CHILD_TIMEOUT_S,
    assert_one_sentence,
    assert_permissions_apply,
    permission_prefix,
    run_wherein,
    wherein_command,
)
from wherein.index.location import index_dir
from wherein.storage.paths import refused_advice

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def refused(tmp_path):
    """(prefix, environment, workspace, index folder): an index built, then its folder 000."""
    prefix = permission_prefix()
    probe = tmp_path / "probe"
    probe.write_text("")
    probe.chmod(0)
    assert_permissions_apply(prefix, probe)
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "app.py").write_text("def parse_cookie(header):\n    return header\n")
    env = {
        "HOME": str(tmp_path),
        "WHEREIN_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(REPO_ROOT),
        "WHEREIN_EMBEDDING_PROVIDER": "static",
    }
    built = run_wherein("index", "--workspace", str(workspace), env=env)
    assert built.returncode == 0, built.stderr
    folder = index_dir(workspace, env)
    folder.chmod(0)
    yield prefix, env, workspace, folder
    folder.chmod(0o755)


@pytest.mark.parametrize("command", ["search", "index", "related"])
def test_a_command_on_a_refused_index_folder_names_the_permission(refused, command):
    prefix, env, workspace, folder = refused
    args = {"search": ["search", "cookie"], "index": ["index"], "related": ["related", "app.py"]}
    done = run_wherein(*args[command], "--workspace", str(workspace), prefix=prefix, env=env)
    assert done.returncode == 1
    line = assert_one_sentence(done.stderr)
    assert "permission" in line.lower() and str(folder) in line
    assert "disk space" not in line


def test_status_on_a_refused_index_folder_names_the_permission(refused):
    prefix, env, workspace, folder = refused
    done = run_wherein("status", "--workspace", str(workspace), prefix=prefix, env=env)
    text = (done.stdout + done.stderr).decode()
    assert "Traceback" not in text
    assert "Permission denied" in text and str(folder) in text


def test_serve_on_a_refused_index_folder_starts_and_answers_the_permission(refused):
    prefix, env, workspace, folder = refused
    call = {"name": "recall", "arguments": {"query": "cookie"}}
    lines = [
        MCP_INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    log = folder.parent / "serve.log"
    with (
        log.open("wb") as stderr,
        subprocess.Popen(
            wherein_command("serve", "--workspace", str(workspace), prefix=prefix),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, **env},
        ) as server,
    ):
        for message in lines:
            server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = server.stdout.readline()
            assert line, log.read_text()
            answer = json.loads(line)
            answers[answer.get("id")] = answer
        server.stdin.close()
        server.wait(timeout=CHILD_TIMEOUT_S)
    result = answers[2]["result"]
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["kind"] == "IndexUnwritable"
    assert "permission" in error["message"].lower() and str(folder) in error["message"]


@pytest.mark.parametrize(
    ("err", "cause"),
    [
        (sqlite3.OperationalError("attempt to write a readonly database"), "permission"),
        (sqlite3.OperationalError("unable to open database file"), "permission"),
        (PermissionError(errno.EACCES, "Permission denied"), "permission"),
        (OSError(errno.ENOSPC, "No space left on device"), "disk space"),
        (sqlite3.OperationalError("database or disk is full"), "disk space"),
    ],
)
def test_the_advice_for_a_refused_write_follows_its_cause(tmp_path, err, cause):
    advice = refused_advice(tmp_path, err)
    assert cause in advice.lower()
    assert ("disk space" in advice) == (cause == "disk space")
    if cause == "permission":
        assert str(tmp_path) in advice
