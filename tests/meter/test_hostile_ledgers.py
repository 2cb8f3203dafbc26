"""A ledger is data anyone could have written: numbers out of range are rejected with a reason,
totals stay exact and finite, `--json` stays JSON, and links, FIFOs and huge files are not read."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

from tests.meter.hostile import plant_special_files, run_child, strict_json
from tests.meter.ledger_fixtures import OPUS
from wherein.cli import main
from wherein.meter import build_baseline, format_report

MODEL = "gpt-5-codex"  # 1.25 in, 0.125 cached, 10 out per million tokens
GOOD_COST = (1000 * 1.25 + 200 * 10) / 1e6
COUNT_TOO_LARGE = "a count of 10^12 or more"
NEGATIVE_COUNT = "a negative count"
COST_NOT_FINITE = "a cost that is not a finite number"
COST_TOO_LARGE = "a cost of $10,000 or more for one request"
PRICED_COST_TOO_LARGE = "a priced cost of $10,000 or more for one request"
NEGATIVE_COST = "a negative cost"
TIME_OUT_OF_RANGE = "a time outside 2000-01-01 .. 2099-12-31 UTC"
LINE_TOO_LONG = "a line longer than 32 MiB"
LINE_CAP = 32 << 20
BASELINE = "import sys; from wherein.cli import main; sys.exit(main(sys.argv[1:]))"


def _row(session: str = "s1", **changes) -> dict:
    row = {
        "time": "2026-11-10T12:00:00Z",
        "session": session,
        "model": MODEL,
        "input_tokens": 1000,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "output_tokens": 200,
    }
    row.update(changes)
    return row


def _ledger(path: Path, rows: list) -> Path:
    # json.dumps writes float('inf') as Infinity and float('nan') as NaN, as a hostile file would.
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _reasons(summary: dict) -> dict[str, int]:
    return {item["reason"]: item["rows"] for item in summary["rejected"]}


def test_costs_that_are_not_finite_negative_or_huge_are_rejected_and_json_stays_json(
    tmp_path, capsys
):
    path = _ledger(
        tmp_path / "calls.jsonl",
        [
            _row(),
            _row(cost_usd=float("inf")),
            _row(cost_usd=1e308),
            _row(cost_usd=1e308),
            _row(cost_usd=float("nan")),
            _row(cost_usd=-0.5),
            _row(cost_usd=10_000),
        ],
    )
    assert main(["baseline", "--ledger", str(path), "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert out["requests"] == 1
    assert out["cost_usd"] == pytest.approx(GOOD_COST)
    assert out["rejected_rows"] == 6
    assert _reasons(out) == {COST_NOT_FINITE: 2, COST_TOO_LARGE: 3, NEGATIVE_COST: 1}
    first = {item["reason"]: item["first"] for item in out["rejected"]}
    assert first[COST_NOT_FINITE] == f"{path} line 2"

    assert main(["baseline", "--ledger", str(path)]) == 0
    text = capsys.readouterr().out
    assert "inf" not in text.lower() and "nan" not in text.lower()
    assert "6 rows rejected as out of range" in text

    page = tmp_path / "report.html"
    assert main(["baseline", "--ledger", str(path), "--html", str(page)]) == 0
    capsys.readouterr()
    document = page.read_text(encoding="utf-8")
    data = re.search(
        r'<script type="application/json" id="wherein-data">\n(.*?)\n</script>', document, re.S
    )
    strict_json(data.group(1))
    assert "6 rows rejected as out of range" in html.unescape(document)


def test_token_counts_out_of_range_are_rejected_not_raised_and_never_wrap(tmp_path, capsys):
    path = _ledger(
        tmp_path / "calls.jsonl",
        [
            _row(),
            _row("s2", input_tokens=10**20),
            _row("s3", input_tokens=2**63 - 1),
            _row("s3", input_tokens=2**63 - 1, time="2026-11-10T12:00:01Z"),
            _row("s4", cache_read_tokens=-1),
            _row("s5", output_tokens=10**12),
            _row("s6", cache_write_1h_tokens=2**64),
        ],
    )
    assert main(["baseline", "--ledger", str(path), "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert (out["requests"], out["rejected_rows"]) == (1, 6)
    assert _reasons(out) == {COUNT_TOO_LARGE: 5, NEGATIVE_COUNT: 1}
    assert out["tokens"]["input"] == 1000
    (bucket,) = out["context_by_step"]["groups"]["baseline"]
    assert bucket["context_tokens"] == 1000


def test_a_computed_cost_out_of_range_is_rejected_as_a_stored_one_is(tmp_path, capsys):
    """Counts in range (below 10**12) priced at the table's rates: $10M for one request."""
    path = _ledger(
        tmp_path / "calls.jsonl",
        [_row(), _row("s2", output_tokens=10**12 - 1), _row("s3", input_tokens=10**12 - 1)],
    )
    assert main(["baseline", "--ledger", str(path), "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert out["requests"] == 1 and out["sessions"] == 1
    assert out["cost_usd"] == pytest.approx(GOOD_COST)
    assert out["rejected_rows"] == 2
    assert _reasons(out) == {PRICED_COST_TOO_LARGE: 2}
    assert main(["baseline", "--ledger", str(path), "--by", "session", "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)["breakdowns"]["session"]["rows"]
    assert [row["key"] for row in rows] == ["s1"]
    assert main(["baseline", "--ledger", str(path)]) == 0
    assert "2 rows rejected as out of range" in capsys.readouterr().out


def test_claude_and_codex_rows_out_of_range_are_rejected(tmp_path):
    projects = tmp_path / "claude" / "projects" / "-home-me-app"
    projects.mkdir(parents=True)
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 5,
    }

    def assistant(number: int, when: str, **changes) -> dict:
        message = {"id": f"m{number}", "model": OPUS, "usage": {**usage, **changes}}
        return {
            "type": "assistant",
            "sessionId": "c1",
            "requestId": f"r{number}",
            "timestamp": when,
            "message": message,
        }

    _ledger(
        projects / "c1.jsonl",
        [
            assistant(1, "2026-11-10T12:00:00Z"),
            assistant(2, "2026-11-10T12:00:01Z", cache_read_input_tokens=10**20),
            assistant(3, "0001-01-01T00:00:00+14:00"),
            {**assistant(4, "2026-11-10T12:00:02Z"), "costUSD": float("inf")},
        ],
    )
    sessions = tmp_path / "codex" / "sessions" / "2026" / "11" / "10"
    sessions.mkdir(parents=True)

    def total(second: int, inp: int) -> dict:
        info = {
            "total_token_usage": {"input_tokens": inp, "cached_input_tokens": 0, "output_tokens": 1}
        }
        return {
            "timestamp": f"2026-11-10T13:00:0{second}Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": info},
        }

    _ledger(sessions / "rollout-x.jsonl", [total(1, 100), total(2, 10**19), total(3, 300)])
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex")}
    summary = build_baseline(environ=environ, with_days=True)
    assert summary["requests"] == 3  # m1, and the codex totals 100 then 300
    assert summary["tokens"]["input"] + summary["tokens"]["cache_read"] == 10 + 300
    assert _reasons(summary) == {COUNT_TOO_LARGE: 2, TIME_OUT_OF_RANGE: 1, COST_NOT_FINITE: 1}


def test_times_that_do_not_convert_to_a_day_in_range_are_rejected(tmp_path, capsys):
    path = _ledger(
        tmp_path / "calls.jsonl",
        [
            _row(),
            _row(time="0001-01-01T00:00:00+14:00"),
            _row(time="9999-12-31T23:59:59-14:00"),
            _row(time="1999-12-31T23:59:59Z"),
            _row(time="2100-01-01T00:00:00Z"),
        ],
    )
    page = tmp_path / "report.html"
    assert main(["baseline", "--ledger", str(path), "--html", str(page), "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert (out["requests"], out["period"]["days"]) == (1, 1)
    assert _reasons(out) == {TIME_OUT_OF_RANGE: 4}


def test_a_line_longer_than_the_cap_is_rejected_and_the_lines_after_it_are_read(tmp_path):
    path = tmp_path / "calls.jsonl"
    with open(path, "wb") as handle:
        handle.write(json.dumps(_row()).encode() + b"\n")
        handle.write(b'{"pad": "' + b"x" * LINE_CAP + b'"}\n')
        handle.write(json.dumps(_row("s2")).encode() + b"\n")
    summary = build_baseline([path])
    assert (summary["requests"], summary["malformed_lines"]) == (2, 0)
    assert _reasons(summary) == {LINE_TOO_LONG: 1}
    assert summary["rejected"][0]["first"] == f"{path} line 2"


def test_a_line_nested_deeper_than_python_recurses_is_malformed_not_fatal(tmp_path):
    path = tmp_path / "calls.jsonl"
    with open(path, "wb") as handle:
        handle.write(json.dumps(_row()).encode() + b"\n")
        handle.write(b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
        handle.write(json.dumps(_row("s2")).encode() + b"\n")
    summary = build_baseline([path])
    assert (summary["requests"], summary["malformed_lines"]) == (2, 1)


def test_a_transcript_whose_name_is_not_utf8_is_named_in_the_html_report(tmp_path, capsys):
    """Its name's undecodable byte is a lone surrogate in Python: the page, written as UTF-8,
    was lost with a traceback when a note named the file."""
    folder = tmp_path / "home" / ".claude" / "projects" / "p"
    folder.mkdir(parents=True)
    usage = {"input_tokens": -1, "output_tokens": 1}
    line = {
        "type": "assistant",
        "sessionId": "s1",
        "requestId": "r1",
        "timestamp": "2026-01-05T10:00:00Z",
        "message": {"id": "m1", "model": "claude-sonnet-4-5", "content": [], "usage": usage},
    }
    with open(os.fsencode(folder) + b"/bad\xff.jsonl", "w") as handle:
        handle.write(json.dumps(line) + "\n")
    page = tmp_path / "r.html"
    assert main(["baseline", "--html", str(page)]) == 0
    shown = page.read_text(encoding="utf-8")
    assert "bad\\udcff.jsonl" in shown
    capsys.readouterr()


def test_usage_rows_out_of_range_are_rejected(tmp_path):
    ledger = _ledger(tmp_path / "calls.jsonl", [_row()])
    home = tmp_path / "wherein-home"
    home.mkdir()
    usage = {
        "time": "2026-11-10T12:00:00Z",
        "session": "s1",
        "workspace": "/w",
        "action": "search",
        "results": 3,
        "returned_chars": 10,
        "source_chars": 100,
    }
    _ledger(home / "usage.jsonl", [usage, dict(usage, source_chars=10**30)])
    summary = build_baseline([ledger])
    assert summary["usage_rows_rejected"] == 1
    assert summary["groups"]["recall"]["usage"]["source_chars"] == 100
    assert "1 row of usage.jsonl rejected as out of range" in format_report(summary)


def test_a_ledger_named_on_the_command_line_may_be_a_link(tmp_path):
    """The user chose the path: a link they name (say, to today's export) is followed."""
    (tmp_path / "exports").mkdir()
    real = _ledger(tmp_path / "exports" / "2026-11-10.jsonl", [_row()])
    link = tmp_path / "current.jsonl"
    link.symlink_to(real)
    summary = build_baseline([link])
    assert (summary["requests"], summary["sources"]["unreadable"]) == (1, [])


def test_links_fifos_devices_and_huge_files_in_agent_folders_are_skipped_with_a_note(tmp_path):
    claude = tmp_path / "claude"
    projects = claude / "projects" / "-home-me-app"
    projects.mkdir(parents=True)
    good = {
        "type": "assistant",
        "sessionId": "c1",
        "requestId": "r1",
        "timestamp": "2026-11-10T12:00:00Z",
        "message": {"id": "m1", "model": OPUS, "usage": {"input_tokens": 10, "output_tokens": 5}},
    }
    _ledger(projects / "good.jsonl", [good])
    outside = _ledger(tmp_path / "elsewhere.jsonl", [dict(good, sessionId="c2", requestId="r2")])
    planted = plant_special_files(projects, outside)
    home = tmp_path / "wherein-home"
    home.mkdir()
    (home / "usage.jsonl").symlink_to("/dev/zero")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(tmp_path / "none")}
    done = run_child(BASELINE, "baseline", "--json", env=env)
    assert (done.returncode, done.stderr) == (0, "")
    out = strict_json(done.stdout)
    assert (out["sessions"], out["requests"]) == (1, 1)
    skipped = "\n".join(out["sources"]["unreadable"])
    for path in (*planted.values(), home / "usage.jsonl"):
        assert str(path) in skipped
    assert f"{planted['linked']}: it is a symbolic link" in skipped
    assert f"{planted['fifo']}: it is not a regular file (a FIFO)" in skipped
    assert f"{planted['huge']}: it is larger than" in skipped
