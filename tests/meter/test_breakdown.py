"""`wherein baseline --by ...`: rows per day, week, month, session, project and model, in text,
JSON and the page, against figures computed by hand in ledger_fixtures.py and here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.meter.browser import Browser
from tests.meter.ledger_fixtures import write_claude_projects, write_codex_sessions, write_usage
from tests.meter.test_html import _browser_or_skip
from wherein.cli import main
from wherein.meter import build_baseline
from wherein.meter.html import render_html

SONNET = "claude-sonnet-4-5-20250929"  # 3 in, 15 out per million tokens
# Per request, in micro-dollars (ledger_fixtures.py).
A1, A2, S1, B1, B2, CODEX_1, CODEX_2 = 8280, 1815, 200, 2015, 5660, 1575, 2025


@pytest.fixture
def everything(tmp_path: Path) -> Path:
    write_claude_projects(tmp_path / "home" / ".claude")
    write_codex_sessions(tmp_path / "home" / ".codex")
    write_usage(tmp_path / "wherein-home" / "usage.jsonl")
    return tmp_path


def _by(capsys, by: str, *extra: str) -> dict:
    assert main(["baseline", "--json", "--by", by, *extra]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["by"] == by
    return summary["breakdowns"][by]


def test_per_model_rows_price_each_model_and_name_the_unpriced_one(everything, capsys):
    table = _by(capsys, "model")
    rows = {row["key"]: row for row in table["rows"]}
    assert rows[SONNET]["cost_usd"] == pytest.approx((A1 + A2) / 1e6 + 0.25)  # C2 stored
    assert rows["claude-opus-4-5-20251101"]["cost_usd"] == pytest.approx((B1 + B2) / 1e6)
    assert rows["claude-haiku-4-5-20251001"]["cost_usd"] == pytest.approx(S1 / 1e6)
    assert rows["gpt-5-codex"]["cost_usd"] == pytest.approx((CODEX_1 + CODEX_2) / 1e6)
    mystery = rows["claude-mystery-9"]
    assert mystery["cost_usd"] is None  # never priced as a neighbouring model
    assert mystery["unpriced_reason"] == "not in the price table"
    assert (mystery["requests"], mystery["tokens"]["input"], mystery["tokens"]["output"]) == (
        1,
        1000,
        100,
    )
    assert [row["key"] for row in table["rows"]][0] == SONNET  # the dearest first
    total = table["total"]
    assert (total["requests"], total["sessions"], total["unpriced_requests"]) == (9, 4, 1)
    assert total["cost_usd"] == pytest.approx(
        (A1 + A2 + S1 + B1 + B2 + CODEX_1 + CODEX_2) / 1e6 + 0.25
    )


def test_per_session_rows_hold_subagents_times_project_and_models(everything, capsys):
    rows = {row["key"]: row for row in _by(capsys, "session")["rows"]}
    a = rows["sess-a"]
    assert a["requests"] == 3  # A1, A2 and the subagent's S1
    assert a["cost_usd"] == pytest.approx((A1 + A2 + S1) / 1e6)
    # S1 at :02 comes first: A1 keeps the time of its fuller copy, :03 (its first was :01)
    assert (a["first"], a["last"]) == ("2026-11-02T10:00:02Z", "2026-11-02T10:00:05Z")
    assert a["project"] == "/home/me/app"
    assert a["models"] == ["claude-haiku-4-5-20251001", SONNET]
    assert rows["sess-b"]["recall_sessions"] == 1 and rows["sess-a"]["recall_sessions"] == 0
    assert rows["codex-s1"]["recall_sessions"] == 1  # joined through usage.jsonl
    assert rows["sess-c"]["unpriced_requests"] == 1


def test_filters_apply_to_the_rows(everything, capsys):
    rows = _by(capsys, "project", "--since", "2026-11-03", "--until", "2026-11-04")["rows"]
    assert {row["key"]: row["requests"] for row in rows} == {"/home/me/web": 2, "/home/me/api": 2}
    only = _by(capsys, "day", "--project", "/home/me/lab")["rows"]
    assert [(row["key"], row["requests"]) for row in only] == [("2026-11-05", 2)]


def _late_session(tmp_path: Path) -> None:
    # One session from 23:59:30 on 31 October into 1 November and on to Monday 2 November;
    # each request 10 in, 10 out on sonnet-4-5 = 30 + 150 = 180 micro-dollars.
    lines = []
    for n, when in enumerate(
        ("2026-10-31T23:59:30Z", "2026-11-01T00:00:30Z", "2026-11-02T10:00:00Z"), start=1
    ):
        lines.append(
            {
                "type": "assistant",
                "sessionId": "late",
                "timestamp": when,
                "requestId": f"r{n}",
                "message": {
                    "id": f"m{n}",
                    "model": SONNET,
                    "content": [],
                    "usage": {"input_tokens": 10, "output_tokens": 10},
                },
            }
        )
    folder = tmp_path / "home" / ".claude" / "projects" / "-late"
    folder.mkdir(parents=True)
    (folder / "late.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_session_past_midnight_and_into_a_new_month_is_split_by_each_request(tmp_path, capsys):
    _late_session(tmp_path)
    days = _by(capsys, "day")["rows"]
    assert [(r["key"], r["requests"], r["sessions"]) for r in days] == [
        ("2026-10-31", 1, 1),
        ("2026-11-01", 1, 1),
        ("2026-11-02", 1, 1),
    ]
    assert all(r["cost_usd"] == pytest.approx(180 / 1e6) for r in days)
    months = _by(capsys, "month")["rows"]
    assert [(r["key"], r["requests"]) for r in months] == [("2026-10", 1), ("2026-11", 2)]
    weeks = _by(capsys, "week")["rows"]  # Saturday and Sunday, then Monday
    assert [(r["key"], r["start"], r["requests"]) for r in weeks] == [
        ("2026-W44", "2026-10-26", 2),
        ("2026-W45", "2026-11-02", 1),
    ]
    summary = build_baseline()
    assert [d["date"] for d in summary["per_day"]] == ["2026-10-31", "2026-11-01", "2026-11-02"]


def test_the_text_table_has_a_row_per_group_a_total_and_the_notes(everything, capsys):
    assert main(["baseline", "--by", "model"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "BY MODEL  2026-11-02 .. 2026-11-05 (4 days, UTC)"
    assert lines[1].split() == [
        "model",
        "sessions",
        "requests",
        "input",
        "cache",
        "read",
        "cache",
        "write",
        "output",
        "cost",
    ]
    assert lines[2].split()[0] == SONNET and lines[2].endswith("$0.26")
    mystery = next(line for line in lines if line.strip().startswith("claude-mystery-9"))
    assert mystery.split()[1:] == ["1", "1", "1,000", "0", "0", "100", "unpriced"]
    assert any(line.split()[:3] == ["total", "4", "9"] for line in lines)
    assert "Unpriced and left out of every cost: claude-mystery-9" in " ".join(out.split())


def test_an_unknown_grouping_is_one_sentence_and_exit_2(everything, capsys):
    assert main(["baseline", "--by", "year"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "wherein: --by 'year' is not a grouping: choose from day, week, month, session, "
        "project, model.\n"
    )


def _hostile_session(tmp_path: Path) -> str:
    name = 'x"><script>alert(1)</script>\x1b[2J'
    line = {
        "type": "assistant",
        "sessionId": name,
        "timestamp": "2026-11-03T12:00:00Z",
        "message": {
            "id": "m-hostile",
            "model": SONNET,
            "content": [],
            "usage": {"input_tokens": 1000, "output_tokens": 1000},
        },
    }
    folder = tmp_path / "home" / ".claude" / "projects" / "-evil"
    folder.mkdir(parents=True)
    (folder / "evil.jsonl").write_text(json.dumps(line) + "\n")
    return name


def test_the_page_has_a_sortable_table_per_grouping_and_escapes_names(everything, capsys):
    name = _hostile_session(everything)
    assert main(["baseline", "--by", "session", "--html", str(everything / "r.html")]) == 0
    capsys.readouterr()
    page = (everything / "r.html").read_text()
    for by in ("day", "week", "month", "session", "project", "model"):
        assert f'<details class="breakdown" id="by-{by}"' in page
    assert '<details class="breakdown" id="by-session" open>' in page
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert name not in page


SORT_PROBE = """
(() => {
  const table = document.querySelector("#by-model table");
  const keys = () => Array.from(table.tBodies[0].rows, r => r.cells[0].textContent);
  const button = i => table.tHead.rows[0].cells[i].querySelector("button");
  const before = keys();
  button(2).click();
  const byRequests = keys();
  button(0).click();
  const byName = keys();
  button(0).click();
  const byNameDown = keys();
  return JSON.stringify({before, byRequests, byName, byNameDown,
    total: table.tFoot.rows[0].cells[0].textContent,
    sort: table.tHead.rows[0].cells[0].getAttribute("aria-sort")});
})()
"""


def test_the_page_sorts_a_breakdown_by_the_column_clicked(everything, tmp_path, capsys):
    executable = _browser_or_skip(capsys)
    page = tmp_path / "report.html"
    page.write_text(render_html(build_baseline(with_days=True)), encoding="utf-8")
    with Browser(executable, tmp_path / "profile") as browser:
        browser.open_page(1200, 900)
        browser.call("Page.navigate", {"url": page.as_uri()})
        browser.wait_for_event("Page.loadEventFired")
        got = json.loads(browser.evaluate(SORT_PROBE))
    models = sorted(got["before"])
    assert got["before"][0] == SONNET  # as served: the dearest first
    requests = {
        SONNET: 3,
        "claude-opus-4-5-20251101": 2,
        "gpt-5-codex": 2,
        "claude-haiku-4-5-20251001": 1,
        "claude-mystery-9": 1,
    }
    assert [requests[k] for k in got["byRequests"]] == sorted(requests.values())
    assert got["byName"] == models
    assert got["byNameDown"] == models[::-1]
    assert (got["total"], got["sort"]) == ("total", "descending")


def test_a_ledger_name_cannot_add_a_row_or_an_endless_line_to_the_table(tmp_path, capsys):
    # A session id or model holding a newline printed a forged row ("total"); a model name
    # of 100,000 characters was one line of the notes.
    row = {
        "time": "2026-01-05T10:00:00Z",
        "session": "s1",
        "model": SONNET,
        "input_tokens": 1,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "output_tokens": 1,
    }
    forged = {**row, "session": "s2\n  total  999  999", "model": "m\n  claude-opus-4-1  1  1"}
    endless = {**row, "session": "s3", "model": "x" * 100_000}
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("".join(json.dumps(r) + "\n" for r in (row, forged, endless)))
    for by in ("session", "model"):
        assert main(["baseline", "--ledger", str(ledger), "--no-cache", "--by", by]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        assert sum(line.lstrip().startswith("total") for line in lines) == 1, out
        assert not any(line.lstrip().startswith("claude-opus") for line in lines), out
        assert max(map(len, lines)) < 300, max(map(len, lines))
