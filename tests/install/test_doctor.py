"""`wherein doctor` against real processes: the registered `wherein serve`, and broken entries."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from wherein.cli import main
from wherein.doctor import FAIL, OK, WARN, run_doctor
from wherein.install import server_command
from wherein.server_probe import probe_server

# A stdio program that speaks just enough JSON-RPC to answer, but offers another tool.
WRONG_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "serverInfo": {"name": "impostor", "version": "1"}}
    elif message.get("method") == "tools/list":
        result = {"tools": [{"name": "search", "inputSchema": {"type": "object"}}]}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


# A server that lists recall and answers its status call with the result in argv[1].
ONE_CHANNEL_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "serverInfo": {"name": "half", "version": "1"}}
    elif message.get("method") == "tools/list":
        result = {"tools": [{"name": "recall", "inputSchema": {"type": "object"}}]}
    elif message.get("method") == "tools/call":
        result = json.loads(sys.argv[1])
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def write_cursor_entry(home: Path, entry: dict) -> Path:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"wherein": entry}}))
    return path


def by_name(checks, name):
    return [check for check in checks if check.name == name]


def test_doctor_drives_the_registered_wherein_serve_over_stdio(project, capsys):
    assert main(["install", "claude", "cursor", "--workspace", str(project)]) == 0
    capsys.readouterr()

    code = main(["doctor", "--workspace", str(project)])

    out = capsys.readouterr().out
    assert code == 0, out
    assert "ok    model" in out and "384 dims" in out
    assert "ok    index" in out
    for agent in ("claude", "cursor"):
        (line,) = [line for line in out.splitlines() if line.startswith(f"  ok    {agent}")]
        assert "answers initialize (wherein" in line and "lists recall" in line
        assert "answers its status call" in line
    assert f"serve --workspace {project}'" in out  # Cursor's ${workspaceFolder}, expanded
    assert "All checks passed" in out


def test_a_missing_command_fails_with_the_fix(project, home, capsys):
    write_cursor_entry(home, {"command": str(home / "gone" / "wherein"), "args": ["serve"]})

    assert main(["doctor", "--workspace", str(project)]) == 1

    out = capsys.readouterr().out
    assert f"FAIL  cursor    user scope, {home / '.cursor' / 'mcp.json'}" in out
    assert "does not exist or is not executable" in out
    assert "fix: wherein install cursor" in out


def test_a_server_that_dies_reports_its_exit_code_and_stderr(project):
    entry = {
        "command": sys.executable,
        "args": ["-c", "import sys; sys.stderr.write('no module named wherein'); sys.exit(3)"],
    }
    answered, detail = probe_server(entry, project)
    assert not answered
    assert "exited with code 3 before answering" in detail
    assert "no module named wherein" in detail


def test_a_server_without_recall_is_not_mistaken_for_wherein(project, home):
    write_cursor_entry(home, {"command": sys.executable, "args": ["-c", WRONG_SERVER]})
    (check,) = by_name(run_doctor(project), "cursor")
    assert check.status == FAIL
    assert "answers initialize (impostor 1) but lists no recall tool" in check.detail


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        (
            {"content": [{"type": "text", "text": "Workspace /p."}]},
            "its status answer has no structured text (Claude Code's model would see none)",
        ),
        (
            {"content": [{"type": "text", "text": "a"}], "structuredContent": {"text": "b"}},
            "its status answer's text content differs from its structured text",
        ),
        (
            {
                "content": [{"type": "text", "text": "recall status failed: x\nmore"}],
                "structuredContent": {"text": "recall status failed: x\nmore"},
                "isError": True,
            },
            "its status call failed: recall status failed: x",
        ),
    ],
)
def test_a_status_answer_that_misses_a_channel_fails(project, result, problem):
    entry = {"command": sys.executable, "args": ["-c", ONE_CHANNEL_SERVER, json.dumps(result)]}
    answered, detail = probe_server(entry, project)
    assert not answered
    # Ends there: of a failure, only its first line is quoted.
    assert detail.endswith(f"' answers initialize (half 1) and lists recall, but {problem}")


def test_a_server_that_prints_to_stdout_is_caught(project):
    entry = {"command": sys.executable, "args": ["-c", "print('hello'); input()"]}
    answered, detail = probe_server(entry, project)
    assert not answered and "other than JSON-RPC" in detail


def test_a_config_that_does_not_parse_is_a_failure(project, home):
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": ')
    (check,) = by_name(run_doctor(project), "cursor")
    assert check.status == FAIL and str(path) in check.detail


def test_a_present_agent_without_an_entry_is_a_warning(project, home):
    (home / ".gemini").mkdir()
    (check,) = by_name(run_doctor(project), "gemini")
    assert check.status == WARN and check.fix == "wherein install gemini"


def test_an_index_folder_that_cannot_be_made_fails(project, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should go")
    monkeypatch.setenv("WHEREIN_HOME", str(blocker / "wherein"))
    checks = run_doctor(project)
    (check,) = by_name(checks, "index")
    assert check.status == FAIL and "WHEREIN_HOME" in check.fix
    (model,) = by_name(checks, "model")
    assert model.status == OK


def test_a_projects_own_entry_is_never_started_unless_it_is_this_wherein(project, capsys):
    """A cloned `.mcp.json` naming another program must not make doctor run it."""
    marker = project.parent / "ran"
    entries = [
        {"command": "/bin/sh", "args": ["-c", f"touch {marker}"]},
        {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]},
        # this wherein, but with an environment that could load other code into it
        {"command": server_command()[0], "args": ["serve"], "env": {"LD_PRELOAD": "./x.so"}},
    ]
    for entry in entries:
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"wherein": entry}}))
        checks = run_doctor(project)
        (check,) = by_name(checks, "claude")
        assert check.status == WARN and "not started" in check.detail
        assert not marker.exists()
    capsys.readouterr()
