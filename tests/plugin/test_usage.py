"""The usage meter and its ledger: per-session figures, one row per call, no query or code."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

from tests.plugin.conftest import run_session
from wherein.plugin.session import session_id
from wherein.plugin.usage import UsageMeter
from wherein.usage_ledger import UsageRow, append_usage_row, paths_hash, usage_path

ROW_KEYS = {
    "time",
    "session",
    "workspace",
    "action",
    "results",
    "returned_chars",
    "source_chars",
    "paths_hash",
}


def _rows() -> list[dict]:
    return [json.loads(line) for line in usage_path().read_text().splitlines()]


def test_each_call_appends_one_row_without_query_or_code(repo):
    query = "zebra-unicorn retry with backoff"

    async def steps(rc):
        status = await rc.recall(action="status")
        first = await rc.recall(query=query)
        second = await rc.recall(query="parse_cookie", limit=1)
        failed = await rc.recall(query="x", path="../..")
        after = await rc.recall(action="status")
        return status, first, second, failed, after

    status, first, second, failed, after = run_session(repo, steps)
    rows = _rows()
    assert [r["action"] for r in rows] == ["status", "search", "search", "search", "status"]
    assert all(set(r) == ROW_KEYS for r in rows)
    assert len({r["session"] for r in rows}) == 1
    assert {r["workspace"] for r in rows} == {str(repo)}
    for r in rows:
        stamp = datetime.fromisoformat(r["time"])
        assert stamp.utcoffset() == timezone.utc.utcoffset(None)
    assert rows[1]["results"] == len(first["results"])
    assert rows[2]["results"] == 1
    assert rows[1]["source_chars"] == sum(
        (repo / p).stat().st_size for p in {path for path, _, _ in first["results"]}
    )
    assert rows[2]["paths_hash"] == paths_hash(["app/cookies.py"])
    assert rows[0]["paths_hash"] == "" and rows[3]["results"] == 0
    ledger = usage_path().read_text()
    assert "zebra" not in ledger and "parse_cookie" not in ledger
    assert "def " not in ledger and "retry" not in ledger

    assert "usage" not in status and "Recall" not in status["text"]
    assert first["text"].splitlines()[-1].startswith("Recall 1 · ")
    assert second["text"].splitlines()[-1].startswith("Recall 2 · ")
    assert "usage" not in first and "usage" not in second
    assert after["usage"]["searches"] == 2 and after["usage"]["calls"] == 5
    assert after["usage"]["returned_chars"] == rows[1]["returned_chars"] + rows[2]["returned_chars"]
    assert after["usage"]["source_chars"] == rows[1]["source_chars"] + rows[2]["source_chars"]
    assert after["text"].splitlines()[-1] == after["usage"]["line"]
    assert failed["text"].splitlines()[-1].startswith("Recall 2 · ")  # a failure moves none


def test_session_id_comes_from_the_environment_when_the_host_sets_one(repo, monkeypatch):
    monkeypatch.setenv("CLAUDE_SESSION_ID", "claude-abc")
    assert session_id() == "claude-abc"
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "claude-code-abc")  # Claude Code 2.1.132+
    assert session_id() == "claude-code-abc"
    monkeypatch.setenv("WHEREIN_SESSION_ID", "  mine-42 ")
    assert session_id() == "mine-42"

    async def steps(rc):
        await rc.recall(query="router")
        return await rc.recall(action="status")

    result = run_session(repo, steps)
    assert result["usage"]["session"] == "mine-42"
    assert _rows()[-1]["session"] == "mine-42"


def test_each_session_gets_its_own_minted_id(repo):
    async def steps(rc):
        return await rc.recall(action="status")

    run_session(repo, steps)
    run_session(repo, steps)
    first, second = (r["session"] for r in _rows())
    assert first != second and len(first) == 36


def test_meter_line_reads_like_the_issue_and_says_tokens_are_estimates():
    meter = UsageMeter("s")
    assert meter.line() == "" and meter.to_json() is None
    meter.record("status", 500, 0)
    assert meter.line() == ""
    for _ in range(3):
        meter.record("search", 4_000, 156_000)
    meter.record("search", 900, 0, ok=False)
    assert meter.line() == "Recall 3 · 39x · 456 KB kept out (~114.0k tokens, estimated as chars/4)"
    assert meter.to_json()["calls"] == 5
    assert meter.to_json()["kept_out_tokens_estimate"] == 456_000 // 4


CONCURRENT_WRITER = """
import sys
from pathlib import Path
from wherein.usage_ledger import UsageRow, append_usage_row
worker = sys.argv[2]
for i in range(int(sys.argv[3])):
    row = UsageRow(time=1.8e9, session=worker, workspace="/w/" + "x" * 5000, action="search",
                   results=i, returned_chars=i, source_chars=i, paths_hash="h" * 64)
    assert append_usage_row(row, Path(sys.argv[1]))
"""


def test_concurrent_processes_never_interleave_rows(tmp_path):
    ledger = tmp_path / "usage.jsonl"
    workers = [
        subprocess.Popen([sys.executable, "-c", CONCURRENT_WRITER, str(ledger), f"w{n}", "150"])
        for n in range(4)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0, 0, 0, 0]
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(rows) == 600
    for n in range(4):
        assert sorted(r["results"] for r in rows if r["session"] == f"w{n}") == list(range(150))
    assert oct(ledger.stat().st_mode & 0o777) == "0o600"


def test_an_unwritable_ledger_does_not_fail_the_call(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    row = UsageRow(1.8e9, "s", "/w", "status", 0, 1, 0, "")
    assert append_usage_row(row, blocker / "usage.jsonl") is False


def test_the_baseline_reader_accepts_every_row_the_tool_writes(repo):
    from wherein.meter.jsonl import ReadStats
    from wherein.meter.usage import read_usage
    from wherein.meter.usage import usage_path as reader_path

    async def steps(rc):
        await rc.recall(query="router")
        await rc.recall(action="status")
        await rc.recall(query="x", path="/")

    run_session(repo, steps)
    assert reader_path() == usage_path()
    stats = ReadStats()
    rows = read_usage(usage_path(), stats)
    assert stats.malformed == 0
    assert [r.action for r in rows] == ["search", "status", "search"]
    assert rows[0].returned_chars == _rows()[0]["returned_chars"]
