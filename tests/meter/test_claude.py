"""Claude Code transcripts: streamed copies merged, sidechains kept, recall calls found."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from tests.meter.ledger_fixtures import write_claude_projects
from wherein.meter.claude import ClaudeReader, claude_roots, claude_transcripts
from wherein.meter.jsonl import ReadStats
from wherein.meter.table import RequestTable


def _read(tmp_path, dedupe="largest"):
    projects = write_claude_projects(tmp_path / "claude")
    table, stats = RequestTable(), ReadStats()
    reader = ClaudeReader(table, stats, dedupe=dedupe)
    for path in sorted(projects.rglob("*.jsonl")):
        reader.read(path)
    rows = {
        (table.row(i).session, table.row(i).model, table.row(i).input): table.row(i)
        for i in range(len(table))
    }
    return table, stats, reader, rows


def test_streamed_copies_merge_into_one_request_keeping_the_largest_total(tmp_path):
    table, stats, _, rows = _read(tmp_path)
    assert len(table) == 7  # A1 A2 S1 B1 B2 C1 C2
    a1 = rows[("sess-a", "claude-sonnet-4-5-20250929", 10)]
    assert (a1.cache_write_5m, a1.cache_write_1h, a1.cache_read, a1.output) == (0, 1000, 0, 150)
    b1 = rows[("sess-b", "claude-opus-4-5-20251101", 3)]
    assert (b1.cache_read, b1.output) == (2000, 40)
    # A1's placeholder, B1's placeholder, and B1's copy in the resumed transcript.
    assert stats.duplicate_lines == 3


def test_first_line_rule_keeps_the_placeholder_output_as_ccusage_does(tmp_path):
    _, _, _, rows = _read(tmp_path, dedupe="first")
    assert rows[("sess-a", "claude-sonnet-4-5-20250929", 10)].output == 1
    assert rows[("sess-b", "claude-opus-4-5-20251101", 3)].output == 2


def test_cache_writes_split_by_ttl_and_unsplit_writes_count_as_five_minute(tmp_path):
    _, _, _, rows = _read(tmp_path)
    a2 = rows[("sess-a", "claude-sonnet-4-5-20250929", 5)]
    assert (a2.cache_write_5m, a2.cache_write_1h, a2.cache_read) == (200, 0, 1000)
    b2 = rows[("sess-b", "claude-opus-4-5-20251101", 7)]
    assert (b2.cache_write_5m, b2.cache_write_1h) == (500, 0)


def test_subagent_lines_count_in_the_parent_session(tmp_path):
    _, _, reader, rows = _read(tmp_path)
    s1 = rows[("sess-a", "claude-haiku-4-5-20251001", 100)]
    assert s1.output == 20
    assert reader.sidechain_requests == 1


def test_malformed_lines_are_counted_and_synthetic_lines_are_not_requests(tmp_path):
    table, stats, _, _ = _read(tmp_path)
    assert stats.malformed == 1
    assert all(table.row(i).model != "<synthetic>" for i in range(len(table)))


def test_a_recall_tool_use_marks_its_session_once_even_when_copied(tmp_path):
    _, _, reader, _ = _read(tmp_path)
    assert reader.recall_calls == {"sess-b": 1}


def test_stored_cost_project_and_time_are_read_from_the_line(tmp_path):
    _, _, _, rows = _read(tmp_path)
    c2 = rows[("sess-c", "claude-sonnet-4-5-20250929", 200)]
    assert c2.stored_cost == 0.25
    assert c2.project == "/home/me/lab"
    assert c2.time == datetime(2026, 11, 5, 20, 1, tzinfo=timezone.utc).timestamp()


def test_wrong_token_types_make_a_line_malformed(tmp_path):
    path = tmp_path / "projects" / "p" / "s.jsonl"
    path.parent.mkdir(parents=True)
    line = {
        "type": "assistant",
        "sessionId": "s",
        "requestId": "r",
        "timestamp": "2026-11-01T00:00:00Z",
        "message": {
            "id": "m",
            "model": "claude-haiku-4-5",
            "usage": {"input_tokens": "12", "output_tokens": 3},
        },
    }
    path.write_text(json.dumps(line) + "\n[1, 2]\n", encoding="utf-8")
    table, stats = RequestTable(), ReadStats()
    ClaudeReader(table, stats).read(path)
    assert (len(table), stats.malformed) == (0, 2)


def test_roots_come_from_claude_config_dir_when_set_else_from_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    (tmp_path / "config" / "claude" / "projects").mkdir(parents=True)
    assert claude_roots() == [
        (tmp_path / "config" / "claude").resolve(),
        (home / ".claude").resolve(),
    ]
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        (root / "projects" / "p").mkdir(parents=True)
        (root / "projects" / "p" / "s.jsonl").write_text("", encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{one}, {two},")
    assert claude_roots() == [one.resolve(), two.resolve()]
    assert [p.parent.parent.parent for p in claude_transcripts()] == [one.resolve(), two.resolve()]
