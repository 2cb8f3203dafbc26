"""The text report: issue 7's BASELINE block, then the recall group, totals and notes."""

from __future__ import annotations

import copy

from wherein.meter.report import format_report

ISSUE_BLOCK = """\
BASELINE
  sessions                      109
  requests                      39,706
  avg context/request (pooled)  339,182    every request counts once
  avg context/request (typical) 155,175    every session counts once
  cost                          $160.11
"""

EMPTY_USAGE = {
    "calls_logged": 0,
    "calls_in_transcripts": 0,
    "returned_chars": 0,
    "source_chars": 0,
    "tokens_kept_out_estimate": 0,
    "estimate": "upper bound, chars/4",
}

SUMMARY = {
    "sessions": 109,
    "requests": 39706,
    "cost_usd": 160.114,
    "cache_hit_rate": 0.9312,
    "avg_context_pooled": 339182.4,
    "avg_context_typical": 155174.6,
    "malformed_lines": 3,
    "usage_rows_malformed": 0,
    "unpriced_models": [
        {"model": "kimi-k9", "requests": 12, "tokens": 900, "reason": "not in the price table"}
    ],
    "stored_cost_requests": 0,
    "recall_used": False,
    "groups": {
        "baseline": {
            "sessions": 109,
            "requests": 39706,
            "avg_context_pooled": 339182.4,
            "avg_context_typical": 155174.6,
            "cost_usd": 160.114,
        },
        "recall": {
            "sessions": 0,
            "requests": 0,
            "avg_context_pooled": None,
            "avg_context_typical": None,
            "cost_usd": 0.0,
            "usage": EMPTY_USAGE,
        },
    },
    "cost_split_usd": {
        "cache_read": 100.0,
        "input": 10.0,
        "cache_write": 30.0,
        "output": 20.114,
        "stored": 0.0,
    },
    "price_tiers": {"standard": 39694, "long_context": 0, "off_peak": 0},
    "period": {"first": "2026-10-01", "last": "2026-10-30", "days": 30, "active_days": 28},
    "calls_per_day": 39706 / 30,
    "cost_per_day": 160.114 / 30,
    "duplicate_lines": 80000,
    "repeated_events": 0,
    "unmatched_usage_rows": 0,
    "sources": {"unreadable": []},
    "rules": {
        "price_tables": ["wherein/meter/prices.toml"],
        "one_hour_cache_writes": "1h rate",
        "user_price_file": "/home/me/.config/wherein/prices.toml",
    },
}


def test_the_baseline_block_has_the_issue_shape_exactly():
    text = format_report(SUMMARY)
    assert text.startswith(ISSUE_BLOCK)
    assert "Why two averages" in text


def test_without_recall_the_report_says_so_instead_of_comparing():
    text = format_report(SUMMARY)
    after = text.split("WITH RECALL\n", 1)[1].split("\n\n", 1)[0]
    assert "No session has used recall yet" in after
    assert "sessions" not in after


def test_totals_and_notes_carry_the_other_figures():
    text = format_report(SUMMARY)
    assert "ALL SESSIONS  2026-10-01 .. 2026-10-30 (30 days, UTC)" in text
    assert "  cache hit rate                93.1%" in text
    assert "    re-reading cached context   $100.00    62.5%" in text
    assert "  model calls per day           1,323.5" in text
    assert "  cost per day                  $5.34" in text
    assert "Malformed lines skipped: 3 in the ledgers" in text
    assert "kimi-k9 (12 requests, not in the price table)" in text
    assert "/home/me/.config/wherein/prices.toml" in text


def test_the_recall_group_shows_its_usage_figures_as_estimates():
    summary = copy.deepcopy(SUMMARY)
    summary["recall_used"] = True
    summary["groups"]["recall"] = {
        "sessions": 9,
        "requests": 2000,
        "avg_context_pooled": 120000.0,
        "avg_context_typical": 93105.0,
        "cost_usd": 4.5,
        "usage": {
            "calls_logged": 57,
            "calls_in_transcripts": 55,
            "returned_chars": 120000,
            "source_chars": 900000,
            "tokens_kept_out_estimate": 195000,
            "estimate": "upper bound, chars/4",
        },
    }
    text = format_report(summary)
    after = text.split("WITH RECALL\n", 1)[1]
    assert "  sessions                      9" in after
    assert "  recall calls                  57" in after
    assert "tokens kept out               195,000    estimate, upper bound, chars/4" in after
    assert "Typical context/request is 40% lower with recall" in after
