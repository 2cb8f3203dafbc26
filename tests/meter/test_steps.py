"""Context per request by step, cost per day, and the terminal's bar chart of the steps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.meter.step_fixtures import SESSIONS, request_parts, write_step_ledger
from wherein.meter import build_baseline, format_report
from wherein.meter.ledgers import LedgerSet, read_ledgers
from wherein.meter.prices import load_prices
from wherein.meter.steps import StepCounts, bucket_steps, count_steps, merge_buckets
from wherein.meter.summary import BASELINE, RECALL, Filters, day_costs
from wherein.meter.textchart import BAR_CELLS, CHART_TITLE, FULL


@pytest.fixture
def ledger_path(tmp_path):
    return write_step_ledger(tmp_path / "ledger", tmp_path / "wherein-home")


def test_count_steps_orders_each_session_by_time_and_splits_the_groups(ledger_path):
    ledger = read_ledgers(LedgerSet(generic=(ledger_path,)))
    counts = count_steps(ledger, {"r5", "r6", "r7"})
    assert counts[BASELINE].sessions.tolist() == [4, 4, 3, 2, 1]
    # step k of session i reads 120 + 1000 k + 10 i tokens; b1..b4 are i = 1..4
    assert counts[BASELINE].context.tolist() == [
        4 * 1120 + 100,
        4 * 2120 + 100,
        3 * 3120 + 60,
        2 * 4120 + 30,
        5120 + 10,
    ]
    assert counts[RECALL].sessions.tolist() == [3, 3, 2]
    assert counts[RECALL].context.tolist() == [3 * 1120 + 180, 3 * 2120 + 180, 2 * 3120 + 110]


def test_each_line_stops_where_fewer_than_three_of_its_sessions_go_on(ledger_path):
    summary = build_baseline([ledger_path])
    series = summary["context_by_step"]
    assert series["bucket_steps"] == 1
    assert series["buckets"] == [{"first": k, "last": k} for k in (1, 2, 3)]
    assert [row["avg_context"] for row in series["groups"][BASELINE]] == [1145, 2145, 3140]
    assert [row["avg_context"] for row in series["groups"][RECALL]] == [1180, 2180, None]
    assert [row["sessions"] for row in series["groups"][RECALL]] == [3, 3, 2]
    assert series["drawn_to"] == {BASELINE: 3, RECALL: 2}
    assert series["left_out"] == {BASELINE: 3, RECALL: 2}
    assert series["left_out_requests"] == 5


def test_a_group_smaller_than_the_minimum_is_drawn_whole():
    small = StepCounts(np.array([2, 2, 1, 1]), np.array([20, 40, 30, 40]))
    none = StepCounts(np.zeros(0, np.int64), np.zeros(0, np.int64))
    series = bucket_steps({BASELINE: none, RECALL: small})
    assert series["last_step"] == 4
    assert [row["avg_context"] for row in series["groups"][RECALL]] == [10, 20, 30, 40]
    assert series["left_out_requests"] == 0
    assert all(row["avg_context"] is None for row in series["groups"][BASELINE])


def test_buckets_have_a_round_width_and_merging_keeps_every_sum():
    steps = 130
    sessions = np.full(steps, 10)
    context = np.arange(1, steps + 1) * 10_000
    series = bucket_steps(
        {
            BASELINE: StepCounts(sessions, context),
            RECALL: StepCounts(np.zeros(0, np.int64), np.zeros(0, np.int64)),
        },
        max_buckets=60,
    )
    assert series["bucket_steps"] == 5  # 130 steps: width 2 makes 65 buckets, 5 makes 26
    assert series["buckets"][-1] == {"first": 126, "last": 130}
    merged = merge_buckets(series, 15)
    assert merged["bucket_steps"] == 10
    assert len(merged["buckets"]) == 13
    rows = merged["groups"][BASELINE]
    assert sum(r["requests"] for r in rows) == steps * 10
    assert sum(r["context_tokens"] for r in rows) == int(context.sum())
    assert rows[0]["avg_context"] == pytest.approx(np.mean(np.arange(1, 11)) * 1000)


def test_filters_apply_to_the_steps_as_to_the_summary(ledger_path):
    summary = build_baseline([ledger_path], project="/srv/api", since="2026-11-02")
    series = summary["context_by_step"]
    # only b3 (i = 3) and r6 (i = 6) are in /srv/api on or after 2026-11-02
    assert summary["requests"] == 6
    assert series["groups"][BASELINE][0]["sessions"] == 1
    assert series["groups"][RECALL][0]["sessions"] == 1
    total = sum(r["requests"] for rows in series["groups"].values() for r in rows)
    assert total == summary["requests"]


def test_day_costs_split_each_day_and_list_days_without_requests(ledger_path):
    ledger = read_ledgers(LedgerSet(generic=(ledger_path,)))
    days = day_costs(ledger, load_prices())
    assert [day["date"] for day in days] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    expected = {
        date: dict.fromkeys(("cache_read", "input", "cache_write", "output"), 0.0)
        for date in ("2026-11-01", "2026-11-02", "2026-11-03")
    }
    for i, requests, day, _ in SESSIONS.values():
        for step in range(1, requests + 1):
            for part, usd in request_parts(i, step).items():
                expected[day][part] += usd
    for day in days:
        for part, usd in expected[day["date"]].items():
            assert day[part] == pytest.approx(usd), (day["date"], part)
        assert day["stored"] == 0
    summary = build_baseline([ledger_path])
    assert sum(sum(day[p] for p in expected["2026-11-01"]) for day in days) == pytest.approx(
        summary["cost_usd"]
    )


def test_the_text_report_draws_a_bar_per_step_bucket(ledger_path):
    text = format_report(build_baseline([ledger_path]))
    chart = text.split(CHART_TITLE + "\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert chart[1].split() == ["steps", "baseline", "with", "recall"]
    rows = chart[2:5]
    assert [row.split()[0] for row in rows] == ["1", "2", "3"]
    # The largest average (3,140, baseline step 3) fills every cell; the others scale to it.
    assert FULL * BAR_CELLS in rows[2]
    assert "3,140 (3)" in rows[2] and "1,180 (3)" in rows[0]
    assert rows[2].rstrip().endswith("(3)")  # recall has no point at step 3
    assert "baseline: 3 requests after step 3 left out" in chart[5]
    assert "with recall: 2 requests after step 2 left out" in chart[6]
    assert text.index("WITH RECALL") < text.index(CHART_TITLE) < text.index("ALL SESSIONS")


def test_ascii_bars_for_terminals_without_block_characters(ledger_path):
    text = format_report(build_baseline([ledger_path]), ascii_only=True)
    chart = text.split(CHART_TITLE, 1)[1].split("\n\n", 1)[0]
    assert "#" * BAR_CELLS in chart
    text.encode("ascii")


def test_without_requests_the_report_has_no_step_chart(ledger_path):
    text = format_report(build_baseline([ledger_path], since="2027-01-01"))
    assert CHART_TITLE not in text
    assert "No request in these ledgers matches" in text


def test_count_steps_of_an_empty_filter_is_empty(ledger_path):
    ledger = read_ledgers(LedgerSet(generic=(ledger_path,)))
    counts = count_steps(ledger, set(), Filters(project="nowhere"))
    assert counts[BASELINE].last_step == 0 and counts[RECALL].last_step == 0


def test_step_sums_stay_exact_where_a_float_sum_would_drift(tmp_path):
    largest = 10**12 - 1  # the largest count a ledger row may hold (bounds.py)
    # A stored cost: priced at the table's rates, counts this large are rejected (bounds.py).
    row = {"time": "2026-11-10T12:00:00Z", "model": "gpt-5-codex", "output_tokens": 0}
    row["cost_usd"] = 1.0
    row.update(dict.fromkeys(("input_tokens", "cache_read_tokens", "cache_write_tokens"), largest))
    row["cache_write_1h_tokens"] = largest
    path = tmp_path / "calls.jsonl"
    path.write_text(
        "".join(json.dumps(dict(row, session=f"s{n}")) + "\n" for n in range(10_000)),
        encoding="utf-8",
    )
    summary = build_baseline([path])
    assert summary["tokens"]["input"] == 10_000 * largest
    (bucket,) = summary["context_by_step"]["groups"]["baseline"]
    assert bucket["context_tokens"] == 10_000 * 4 * largest  # past 2**53, where floats drift
    assert type(bucket["context_tokens"]) is int
