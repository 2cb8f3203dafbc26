"""The baseline figures end to end, against totals computed by hand in ledger_fixtures.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.meter.ledger_fixtures import write_claude_projects, write_codex_sessions, write_usage
from wherein.errors import LedgerMissing, UsageError
from wherein.meter import build_baseline, format_report

# Per request, in micro-dollars (see ledger_fixtures.py): context = input + read + writes.
A1, A2, S1, B1, B2 = 8280, 1815, 200, 2015, 5660
CODEX_1, CODEX_2 = 1575, 2025
STORED_C2 = 0.25
CTX = {"A1": 1010, "A2": 1205, "S1": 100, "B1": 2003, "B2": 2507, "C1": 1000, "C2": 200}


@pytest.fixture
def claude_only(tmp_path: Path) -> Path:
    write_claude_projects(tmp_path / "home" / ".claude")
    return tmp_path


@pytest.fixture
def everything(claude_only: Path) -> Path:
    write_codex_sessions(claude_only / "home" / ".codex")
    write_usage(claude_only / "wherein-home" / "usage.jsonl")
    return claude_only


def test_claude_totals_match_the_hand_computed_ones(claude_only):
    s = build_baseline()
    assert (s["sessions"], s["requests"]) == (3, 7)
    assert s["cost_usd"] == pytest.approx((A1 + A2 + S1 + B1 + B2) / 1e6 + STORED_C2, abs=1e-12)
    assert s["avg_context_pooled"] == pytest.approx(sum(CTX.values()) / 7)
    session_a = (CTX["A1"] + CTX["A2"] + CTX["S1"]) / 3
    session_b = (CTX["B1"] + CTX["B2"]) / 2
    session_c = (CTX["C1"] + CTX["C2"]) / 2
    assert s["avg_context_typical"] == pytest.approx((session_a + session_b + session_c) / 3)
    assert s["tokens"] == {
        "input": 10 + 5 + 100 + 3 + 7 + 1000 + 200,
        "cache_read": 1000 + 2000 + 2000,
        "cache_write_5m": 200 + 500,
        "cache_write_1h": 1000,
        "output": 150 + 50 + 20 + 40 + 60 + 100 + 10,
    }
    assert s["cache_hit_rate"] == pytest.approx(5000 / 8025)
    assert s["cost_split_usd"] == pytest.approx(
        {
            "cache_read": 2300e-6,
            "input": 195e-6,
            "cache_write": 9875e-6,
            "output": 5600e-6,
            "stored": 0.25,
        }
    )
    assert s["malformed_lines"] == 1
    assert s["unpriced_models"] == [
        {
            "model": "claude-mystery-9",
            "requests": 1,
            "tokens": 1100,
            "reason": "not in the price table",
        }
    ]
    assert (s["stored_cost_requests"], s["sidechain_requests"], s["duplicate_lines"]) == (1, 1, 3)
    assert s["period"] == {"first": "2026-11-02", "last": "2026-11-05", "days": 4, "active_days": 3}
    assert s["calls_per_day"] == pytest.approx(7 / 4)
    assert s["cost_per_day"] == pytest.approx(s["cost_usd"] / 4)


def test_a_session_that_called_recall_forms_the_recall_group(claude_only):
    groups = build_baseline()["groups"]
    assert groups["recall"]["sessions"] == 1
    assert groups["recall"]["requests"] == 2
    assert groups["recall"]["cost_usd"] == pytest.approx((B1 + B2) / 1e6)
    assert groups["recall"]["avg_context_pooled"] == pytest.approx((2003 + 2507) / 2)
    baseline = groups["baseline"]
    assert (baseline["sessions"], baseline["requests"]) == (2, 5)
    assert baseline["avg_context_pooled"] == pytest.approx(3515 / 5)
    assert baseline["avg_context_typical"] == pytest.approx((2315 / 3 + 1200 / 2) / 2)
    assert groups["recall"]["usage"]["calls_in_transcripts"] == 1


def test_usage_rows_join_codex_sessions_by_id_and_give_the_recall_figures(everything):
    s = build_baseline()
    assert (s["sessions"], s["requests"]) == (4, 9)
    recall = s["groups"]["recall"]
    assert (recall["sessions"], recall["requests"]) == (2, 4)  # sess-b, codex-s1
    assert recall["cost_usd"] == pytest.approx((B1 + B2 + CODEX_1 + CODEX_2) / 1e6)
    assert recall["usage"] == {
        "calls_logged": 2,  # search rows of sess-b and codex-s1; not the status row, not ghost
        "calls_in_transcripts": 1,
        "returned_chars": 2800,
        "source_chars": 16000,
        "tokens_kept_out_estimate": (16000 - 2800) // 4,
        "estimate": "upper bound, chars/4",
    }
    assert s["unmatched_usage_rows"] == 1
    assert (s["repeated_events"], s["malformed_lines"], s["usage_rows_malformed"]) == (2, 2, 1)


def test_ccusage_rules_price_placeholder_outputs_and_one_hour_writes_lower(claude_only):
    ours = build_baseline()["cost_usd"]
    theirs = build_baseline(dedupe="first", one_hour_as_5m=True)["cost_usd"]
    # A1 first line: 10 in, 1000 written (at the 5m rate $3.75), 1 out; B1 first line: 2 out.
    a1_first = 10 * 3 + 1000 * 3.75 + 1 * 15
    b1_first = 3 * 5 + 2000 * 0.5 + 2 * 25
    assert theirs == pytest.approx((a1_first + A2 + S1 + b1_first + B2) / 1e6 + STORED_C2)
    assert ours - theirs == pytest.approx((A1 - a1_first + B1 - b1_first) / 1e6)


def test_since_until_and_project_filter_requests(everything):
    one_day = build_baseline(since="2026-11-03", until="2026-11-03")
    assert (one_day["sessions"], one_day["requests"]) == (1, 2)
    assert one_day["cost_usd"] == pytest.approx((B1 + B2) / 1e6)
    later = build_baseline(since="2026-11-04T09:00:05Z")
    assert later["requests"] == 3  # the second Codex request and sess-c's two
    web = build_baseline(project="/home/me/web")
    assert (web["sessions"], web["requests"]) == (1, 2)
    assert web["groups"]["recall"]["sessions"] == 1


def test_filters_that_match_nothing_give_an_empty_report_not_an_error(everything):
    s = build_baseline(since="2030-01-01")
    assert (s["sessions"], s["requests"], s["cost_usd"]) == (0, 0, 0.0)
    assert (s["avg_context_pooled"], s["cache_hit_rate"], s["calls_per_day"]) == (None, None, None)
    assert "No request in these ledgers matches" in format_report(s)


def test_ledgers_that_hold_no_request_say_so_not_that_a_filter_matched_nothing(tmp_path):
    empty = tmp_path / "calls.jsonl"
    empty.write_text('{"not": "a request"}\n')
    text = format_report(build_baseline([empty]))
    assert "These ledgers hold no request that could be read." in text
    assert "--since" not in text


def test_no_recall_anywhere_leaves_the_recall_group_empty(tmp_path):
    ledger = tmp_path / "calls.jsonl"
    ledger.write_text(
        '{"time": "2026-11-10T12:00:00Z", "session": "x", "model": "claude-haiku-4-5", '
        '"input_tokens": 1000, "cache_read_tokens": 0, "cache_write_tokens": 0, '
        '"output_tokens": 200}\n',
        encoding="utf-8",
    )
    s = build_baseline([ledger])
    assert s["recall_used"] is False
    assert s["groups"]["recall"] == {
        "sessions": 0,
        "requests": 0,
        "avg_context_pooled": None,
        "avg_context_typical": None,
        "cost_usd": 0.0,
        "usage": {
            "calls_logged": 0,
            "calls_in_transcripts": 0,
            "returned_chars": 0,
            "source_chars": 0,
            "tokens_kept_out_estimate": 0,
            "estimate": "upper bound, chars/4",
        },
    }
    assert s["cost_usd"] == pytest.approx((1000 * 1 + 200 * 5) / 1e6)


def test_missing_ledgers_and_bad_dates_are_errors_that_say_what_to_do(tmp_path):
    with pytest.raises(LedgerMissing, match="--ledger FILE"):
        build_baseline()
    with pytest.raises(UsageError, match="No ledger file at"):
        build_baseline([tmp_path / "nope.jsonl"])
    with pytest.raises(UsageError, match="--since 'last week'"):
        build_baseline([tmp_path], since="last week")
