"""Reading the ledgers fast and again: the parse cache, reader processes, files being written,
and lines of kinds a newer agent writes."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.meter.ledger_fixtures import write_claude_projects, write_codex_sessions
from wherein.cli import main
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.ledgers import LedgerSet, read_ledgers
from wherein.meter.parsecache import CACHE_FILE_NAME
from wherein.meter.table import RequestTable

SONNET = "claude-sonnet-4-5-20250929"  # 3 in, 0.3 read, 15 out per million tokens


def _baseline(capsys, *extra: str) -> dict:
    assert main(["baseline", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _unwrapped(capsys) -> str:
    """The text report with its notes' line wraps undone."""
    return " ".join(capsys.readouterr().out.split())


def _figures(summary: dict) -> dict:
    """Everything but how the files were read."""
    return {k: v for k, v in summary.items() if k != "sources"}


def _response(session: str, message_id: str, when: str, inp: int, out: int) -> dict:
    return {
        "type": "assistant",
        "sessionId": session,
        "timestamp": when,
        "requestId": f"req-{message_id}",
        "cwd": "/home/me/app",
        "message": {
            "id": message_id,
            "model": SONNET,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": inp, "output_tokens": out},
        },
    }


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    return write_claude_projects(tmp_path / "home" / ".claude")


def test_a_second_baseline_reads_no_file_and_reports_the_same(projects, capsys):
    first = _baseline(capsys)
    second = _baseline(capsys)
    files = len(list(projects.rglob("*.jsonl")))
    assert (first["sources"]["files_from_cache"], second["sources"]["files_from_cache"]) == (
        0,
        files,
    )
    assert _figures(second) == _figures(first)
    assert second["sources"]["lines"] == first["sources"]["lines"]
    assert second["sources"]["malformed_by_file"] == first["sources"]["malformed_by_file"]


def test_a_transcript_that_grew_is_read_again_and_only_it(projects, capsys):
    before = _baseline(capsys)
    grown = projects / "-home-me-lab" / "sess-c.jsonl"
    with grown.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(_response("sess-c", "msg_c3", "2026-11-05T20:02:00Z", 100, 10)))
        handle.write("\n")
    after = _baseline(capsys)
    files = len(list(projects.rglob("*.jsonl")))
    assert after["sources"]["files_from_cache"] == files - 1
    assert after["requests"] == before["requests"] + 1
    assert after["cost_usd"] == pytest.approx(before["cost_usd"] + (100 * 3 + 10 * 15) / 1e6)


def test_a_transcript_rewritten_to_the_same_size_is_read_again(projects, capsys):
    path = projects / "-home-me-lab" / "sess-c.jsonl"
    before = _baseline(capsys)
    text = path.read_text(encoding="utf-8")
    edited = text.replace('"output_tokens": 100', '"output_tokens": 900')  # C1, unpriced
    edited = edited.replace('"input_tokens": 200', '"input_tokens": 700')  # C2, stored cost
    assert len(edited) == len(text) and edited != text
    path.write_text(edited, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    after = _baseline(capsys)
    assert after["tokens"]["input"] == before["tokens"]["input"] + 500
    assert after["tokens"]["output"] == before["tokens"]["output"] + 800


def test_a_damaged_cache_is_named_and_every_file_is_read(projects, tmp_path, capsys):
    expected = _baseline(capsys, "--no-cache")
    cache = tmp_path / "wherein-home" / CACHE_FILE_NAME
    assert not cache.exists()  # --no-cache leaves none behind
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"this is not a database" * 100)
    got = _baseline(capsys)
    assert _figures(got) == _figures(expected)
    assert str(cache) in got["sources"]["cache_problem"]
    assert main(["baseline"]) == 0
    assert f"Parse cache not used: {cache} cannot be used" in _unwrapped(capsys)


def test_a_damaged_record_is_read_again_from_the_file(projects, tmp_path, capsys):
    expected = _baseline(capsys)
    with sqlite3.connect(tmp_path / "wherein-home" / CACHE_FILE_NAME) as conn:
        conn.execute("UPDATE parsed SET data = X'00'")
    got = _baseline(capsys)
    assert _figures(got) == _figures(expected)
    assert got["sources"]["files_from_cache"] == 0


def test_reader_processes_give_the_table_one_process_gives(projects, tmp_path):
    write_codex_sessions(tmp_path / "codex")
    files = LedgerSet(
        claude=tuple(sorted(projects.rglob("*.jsonl"))),
        codex=tuple(sorted((tmp_path / "codex").rglob("*.jsonl"))),
    )
    here = read_ledgers(files, workers=1)
    pooled = read_ledgers(files, workers=2, pool_min_bytes=0)
    for column in RequestTable.COLUMNS:
        mine, theirs = getattr(here.table, column), getattr(pooled.table, column)
        if column in RequestTable.NAME_COLUMNS:
            mine = [here.table.names[i] for i in mine]
            theirs = [pooled.table.names[i] for i in theirs]
        assert repr(list(mine)) == repr(list(theirs)), column  # repr: nan equals nan
    assert (here.recall_calls, here.sidechain_requests) == (
        pooled.recall_calls,
        pooled.sidechain_requests,
    )
    assert here.stats == pooled.stats


def test_a_ledger_being_written_is_read_as_it_was_when_opened(tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}\n', encoding="utf-8")
    stats = ReadStats()
    seen = []
    for value in iter_json_lines(path, stats):
        seen.append(value["n"])
        if len(seen) == 1:  # an agent appends, and starts a line it has not finished
            with path.open("a", encoding="utf-8") as handle:
                handle.write('{"n": 3}\n{"n": ')
    assert seen == [1, 2]
    assert (stats.lines, stats.malformed) == (2, 0)


def test_interleaved_and_truncated_lines_are_malformed_not_fatal(tmp_path):
    path = tmp_path / "calls.jsonl"
    whole = json.dumps({"n": 1})
    path.write_text(f"{whole[:5]}{whole}\n{whole}{whole}\n{whole[:-3]}\n{whole}\n")
    stats = ReadStats()
    assert [v["n"] for v in iter_json_lines(path, stats)] == [1]
    assert (stats.lines, stats.malformed) == (4, 3)


def test_lines_and_fields_of_kinds_a_newer_agent_writes_are_counted_not_understood(
    tmp_path, capsys
):
    line = _response("sess-n", "msg_n1", "2026-11-02T10:00:00Z", 10, 5)
    line["message"]["usage"]["cache_creation_2h_input_tokens"] = 40
    line["message"]["usage"]["server_tool_use"] = {"web_search_requests": 1}  # known, no tokens
    newer = {"type": "assistant_checkpoint", "sessionId": "sess-n", "note": "assistant"}
    folder = tmp_path / "home" / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    rows = [line, newer, {"type": "user", "message": {"role": "user", "content": "hi"}}]
    (folder / "sess-n.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = _baseline(capsys)
    assert summary["requests"] == 1
    assert summary["not_understood"] == [
        {"what": "Claude line type 'assistant_checkpoint'", "lines": 1},
        {"what": "Claude usage field 'cache_creation_2h_input_tokens'", "lines": 1},
    ]
    assert summary["malformed_lines"] == 0
    assert main(["baseline"]) == 0
    assert "Not understood, so not counted (a newer agent may write them)" in _unwrapped(capsys)


def _variants() -> list:
    """A good response line, and that line broken in every way a ledger can break it."""
    good = _response("sess-v", "msg_v", "2026-11-02T10:00:00Z", 10, 5)
    good["message"]["usage"].update(
        {"cache_creation_input_tokens": 300, "cache_read_input_tokens": 40, "service_tier": "x"}
    )
    good["message"]["usage"]["cache_creation"] = {
        "ephemeral_5m_input_tokens": 100,
        "ephemeral_1h_input_tokens": 200,
    }
    good["message"]["content"].append(
        {"type": "tool_use", "id": "toolu_v", "name": "mcp__wherein__recall", "input": {}}
    )
    lines: list = [good]
    usage_changes = [
        ("input_tokens", -1),
        ("input_tokens", 10**12),
        ("input_tokens", 10**30),
        ("input_tokens", True),
        ("input_tokens", 1.0),
        ("input_tokens", None),
        ("output_tokens", "5"),
        ("cache_read_input_tokens", None),
        ("new_kind_tokens", 9),
        ("speed", "fast"),
        ("cache_creation", None),
        ("cache_creation", 7),
        ("cache_creation", {"ephemeral_1h_input_tokens": 999}),
        ("cache_creation", {"ephemeral_1h_input_tokens": -4}),
        ("cache_creation", {"ephemeral_2h_input_tokens": 4}),
    ]
    for key, value in usage_changes:
        line = json.loads(json.dumps(good))
        line["message"]["usage"][key] = value
        lines.append(line)
    for key in ("input_tokens", "output_tokens"):
        line = json.loads(json.dumps(good))
        del line["message"]["usage"][key]
        lines.append(line)
    line_changes = [
        ("timestamp", "yesterday"),
        ("timestamp", "1999-12-31T23:00:00Z"),
        ("timestamp", None),
        ("costUSD", 0.5),
        ("costUSD", -1),
        ("costUSD", "cheap"),
        ("costUSD", 1e6),
        ("sessionId", ""),
        ("sessionId", 5),
        ("requestId", 5),
        ("cwd", 7),
        ("isSidechain", "y"),
        ("message", None),
        ("message", "text"),
        ("type", "user"),
        ("type", "mystery"),
    ]
    for key, value in line_changes:
        line = json.loads(json.dumps(good))
        line[key] = value
        lines.append(line)
    message_changes = [
        ("model", "<synthetic>"),
        ("model", 5),
        ("model", ""),
        ("id", None),
        ("id", 3),
        ("content", "plain"),
        ("content", [5]),
        ("content", None),
        ("usage", None),
        ("usage", [1]),
    ]
    for key, value in message_changes:
        line = json.loads(json.dumps(good))
        line["message"][key] = value
        lines.append(line)
    raw = json.dumps(good)
    lines += [
        raw.replace('"costUSD"', '"x"').replace("}", ', "costUSD": NaN}', 1),
        raw.replace('"msg_v"', '"msg_\\ud800"'),  # a lone surrogate
        raw[:-9],  # cut short
        raw + raw,  # two lines run together
        raw.replace('"input_tokens": 10', '"input_tokens": 10, "input_tokens": 20'),
        "[1, 2]",
    ]
    return lines


def test_the_typed_reading_of_a_response_line_means_what_the_general_one_does(
    tmp_path, monkeypatch
):
    pytest.importorskip("msgspec")
    from wherein.meter import claudeschema
    from wherein.meter.claude import parse_claude

    path = tmp_path / "p" / "projects" / "-x" / "s.jsonl"
    path.parent.mkdir(parents=True)
    variants = _variants()
    for n, line in enumerate(variants):  # each its own response, and a copy of the first
        message = line.get("message") if isinstance(line, dict) else None
        if isinstance(message, dict) and message.get("id") == "msg_v" and n % 2:
            message["id"] = f"msg_v{n}"
    text = "".join((v if isinstance(v, str) else json.dumps(v)) + "\n" for v in variants)
    path.write_text(text, encoding="utf-8")
    typed = parse_claude(path)
    assert claudeschema.decode is not None
    monkeypatch.setattr(claudeschema, "decode", None)
    general = parse_claude(path)
    for column in RequestTable.COLUMNS:
        mine, theirs = getattr(typed.table, column), getattr(general.table, column)
        if column in RequestTable.NAME_COLUMNS:
            mine = [typed.table.names[i] for i in mine]
            theirs = [general.table.names[i] for i in theirs]
        assert repr(list(mine)) == repr(list(theirs)), column
    assert (typed.keys, typed.sidechain, typed.recall) == (
        general.keys,
        general.sidechain,
        general.recall,
    )
    assert typed.stats == general.stats
    assert len(typed.table) >= 5 and typed.stats.malformed >= 10 and typed.stats.rejected >= 5
