"""The usage ledger's one row type: what the tool writes is what the readers get back."""

from __future__ import annotations

import json
import os

from wherein.meter.jsonl import ReadStats
from wherein.meter.usage import read_usage, session_rows
from wherein.usage_ledger import UsageRow, append_usage_row, parse_usage_row, paths_hash

ROW = UsageRow(
    time=1_800_000_000.25,
    session="sess-1",
    workspace="/w",
    action="search",
    results=3,
    returned_chars=400,
    source_chars=9000,
    paths_hash=paths_hash(["b.py", "a.py", "a.py"]),
)


def test_a_written_row_reads_back_whole_with_its_paths_hash(tmp_path):
    ledger = tmp_path / "usage.jsonl"
    assert append_usage_row(ROW, ledger)
    stats = ReadStats()
    assert read_usage(ledger, stats) == [ROW]
    assert session_rows(ledger, "sess-1").rows == [ROW]
    assert stats.malformed == 0


def test_a_link_fifo_or_folder_at_the_ledger_is_refused_not_written_through(tmp_path):
    """The agent's call must answer: a planted FIFO hung every `recall` on its open, and a
    link had the row appended to whatever it named."""
    victim = tmp_path / "precious.txt"
    victim.write_text("mine\n")
    linked = tmp_path / "linked.jsonl"
    linked.symlink_to(victim)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    for planted in (linked, fifo, folder):
        assert append_usage_row(ROW, planted) is False
    assert victim.read_text() == "mine\n"
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader there: opened, then refused
    try:
        assert append_usage_row(ROW, fifo) is False
        assert os.read(reader, 100) == b""
    finally:
        os.close(reader)


def test_the_time_is_written_as_iso_utc_to_the_millisecond():
    assert ROW.to_json()["time"] == "2027-01-15T08:00:00.250+00:00"


def test_a_row_from_before_the_paths_hash_still_reads():
    line = {key: value for key, value in ROW.to_json().items() if key != "paths_hash"}
    assert parse_usage_row(json.loads(json.dumps(line))) == ROW._replace(paths_hash="")


def test_a_paths_hash_that_is_no_string_keeps_the_row_without_it():
    assert parse_usage_row(ROW.to_json() | {"paths_hash": 7}) == ROW._replace(paths_hash="")
