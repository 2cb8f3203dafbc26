"""Codex rollouts: requests are changes of the running total; repeats are skipped."""

from __future__ import annotations

import json

from tests.meter.ledger_fixtures import write_codex_sessions
from wherein.meter.codex import UNKNOWN_MODEL, codex_rollouts, read_codex
from wherein.meter.jsonl import ReadStats
from wherein.meter.table import RequestTable


def test_deltas_of_the_cumulative_total_with_repeats_skipped(tmp_path):
    path = write_codex_sessions(tmp_path / "codex")
    table, stats = RequestTable(), ReadStats()
    read_codex(path, table, stats)
    rows = [table.row(i) for i in range(len(table))]
    got = [(r.input, r.cache_read, r.cache_write_5m, r.output) for r in rows]
    # (1000 in incl. 600 cached, 100 out), then (2500 incl. 1800, 250): reasoning is inside output.
    assert got == [(400, 600, 0, 100), (300, 1200, 0, 150)]
    assert {(r.session, r.model, r.project) for r in rows} == {
        ("codex-s1", "gpt-5-codex", "/home/me/api")
    }
    assert stats.repeated_events == 2
    assert stats.malformed == 1


def test_a_total_that_goes_down_restarts_the_count(tmp_path):
    path = tmp_path / "rollout-x.jsonl"
    lines = []
    for when, inp, out in (("01", 500, 50), ("02", 200, 20)):
        usage = {"input_tokens": inp, "cached_input_tokens": 0, "output_tokens": out}
        payload = {"type": "token_count", "info": {"total_token_usage": usage}}
        lines.append(
            {"timestamp": f"2026-11-04T09:00:{when}Z", "type": "event_msg", "payload": payload}
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    table, stats = RequestTable(), ReadStats()
    read_codex(path, table, stats)
    assert [(table.input[i], table.output[i]) for i in range(len(table))] == [(500, 50), (200, 20)]
    assert table.row(0).model == UNKNOWN_MODEL  # no turn_context: reported, never guessed


def test_rollouts_are_found_under_codex_home(tmp_path, monkeypatch):
    path = write_codex_sessions(tmp_path / "elsewhere")
    assert codex_rollouts() == []
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere"))
    assert codex_rollouts() == [path]
