"""The generic JSONL ledger documented in the README."""

from __future__ import annotations

import json

from wherein.meter.generic import read_generic
from wherein.meter.jsonl import ReadStats
from wherein.meter.table import RequestTable


def test_rows_are_read_and_bad_rows_counted(tmp_path):
    path = tmp_path / "calls.jsonl"
    good = {
        "time": "2026-11-10T03:00:00Z",
        "session": "ds-1",
        "model": "deepseek-v4-pro",
        "input_tokens": 1000,
        "cache_read_tokens": 9000,
        "cache_write_tokens": 0,
        "output_tokens": 500,
        "project": "/srv/bot",
    }
    stored = dict(good, cost_usd=0.5, cache_write_1h_tokens=100)
    missing = {k: v for k, v in good.items() if k != "output_tokens"}
    negative = dict(good, input_tokens=-1)
    lines = [
        json.dumps(good),
        json.dumps(stored),
        json.dumps(missing),
        json.dumps(negative),
        "not json",
        json.dumps([good]),
    ]
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    table, stats = RequestTable(), ReadStats()
    read_generic(path, table, stats)
    assert len(table) == 2
    first, second = table.row(0), table.row(1)
    assert (first.input, first.cache_read, first.output, first.stored_cost) == (
        1000,
        9000,
        500,
        None,
    )
    assert first.project == "/srv/bot"
    assert (second.cache_write_1h, second.stored_cost) == (100, 0.5)
    assert stats.malformed == 3
    assert stats.malformed_by_file == {str(path): 3}
    assert stats.rejected_by_reason == {"a negative count": 1}  # out of range, not malformed
