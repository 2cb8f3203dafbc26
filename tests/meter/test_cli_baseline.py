"""`wherein baseline` on the command line, and `scripts/baseline.py` as its thin wrapper."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from tests.meter.ledger_fixtures import write_claude_projects
from wherein.cli import main

REPO = Path(__file__).resolve().parents[2]
JSON_KEYS = {
    "sessions",
    "requests",
    "cost_usd",
    "cache_hit_rate",
    "avg_context_pooled",
    "avg_context_typical",
    "malformed_lines",
    "unpriced_models",
    "groups",
}
GROUP_KEYS = {"sessions", "requests", "avg_context_pooled", "avg_context_typical", "cost_usd"}


def _script():
    spec = importlib.util.spec_from_file_location("baseline_script", REPO / "scripts/baseline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    rows = [
        {
            "time": "2026-11-10T12:00:00Z",
            "session": "s1",
            "model": "gpt-5-codex",
            "input_tokens": 4000,
            "cache_read_tokens": 36000,
            "cache_write_tokens": 0,
            "output_tokens": 800,
        },
        {
            "time": "2026-11-11T12:00:00Z",
            "session": "s2",
            "model": "gpt-5-codex",
            "input_tokens": 1000,
            "cache_read_tokens": 9000,
            "cache_write_tokens": 0,
            "output_tokens": 200,
            "cost_usd": 0.5,
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_json_has_the_keys_the_issue_lists(ledger, capsys):
    assert main(["baseline", "--ledger", str(ledger), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= JSON_KEYS
    assert set(out["groups"]) == {"baseline", "recall"}
    for group in out["groups"].values():
        assert set(group) >= GROUP_KEYS
    expected = (4000 * 1.25 + 36000 * 0.125 + 800 * 10) / 1e6 + 0.5
    assert out["cost_usd"] == pytest.approx(expected)
    assert out["avg_context_pooled"] == pytest.approx((40000 + 10000) / 2)
    assert out["stored_cost_requests"] == 1


def test_text_report_goes_to_stdout(ledger, capsys):
    assert main(["baseline", "--ledger", str(ledger)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("BASELINE\n  sessions                      2\n")
    assert captured.err == ""


def test_default_ledgers_come_from_home(tmp_path, capsys):
    write_claude_projects(tmp_path / "home" / ".claude")
    assert main(["baseline", "--json", "--project", "/home/me/app"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["sessions"], out["requests"]) == (1, 3)


def test_a_ledger_that_is_not_a_file_is_named_for_what_it_is(tmp_path, capsys):
    fifo = tmp_path / "ledger.jsonl"
    os.mkfifo(fifo)
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    for path, kind in (
        (fifo, "a FIFO"),
        (tmp_path / "zero.jsonl", "a device"),
        (tmp_path, "a folder"),
    ):
        assert main(["baseline", "--ledger", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{path} is {kind}, not a ledger file" in err and "No ledger file" not in err


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["baseline"], 1, "No agent ledger found in"),
        (["baseline", "--ledger", "missing.jsonl"], 2, "No ledger file at missing.jsonl"),
        (["baseline", "--since", "yesterday"], 2, "--since 'yesterday' is not a date"),
        (["baseline", "--since", "2026-11-02", "--until", "2026-11-01"], 2, "is not before"),
    ],
)
def test_failures_exit_with_one_sentence_on_stderr(argv, code, message, capsys):
    assert main(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_the_script_wraps_the_same_code_and_can_apply_ccusage_rules(ledger, capsys):
    script = _script()
    assert script.main(["--ledger", str(ledger), "--json"]) == 0
    ours = json.loads(capsys.readouterr().out)
    assert script.main(["--ledger", str(ledger), "--json", "--ccusage-rules"]) == 0
    theirs = json.loads(capsys.readouterr().out)
    assert ours["cost_usd"] == pytest.approx(theirs["cost_usd"])  # no Claude lines to differ
    assert theirs["rules"]["dedupe"] == "first"
    assert theirs["rules"]["one_hour_cache_writes"] == "5m rate"
