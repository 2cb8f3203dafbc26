"""Transcripts are read with the cost meter's rules: no links, regular files only, bounded; so a
planted FIFO, `/dev/zero` or a sparse giant neither stalls `history index` nor fills memory."""

from __future__ import annotations

import json
import os

from tests.history.builders import (
    claude_assistant,
    claude_conversation,
    claude_user,
    text,
    write_lines,
)
from tests.meter.hostile import plant_special_files, run_child, strict_json
from wherein.history.refresh import index_history
from wherein.history.search import search_history

TALK = [("user", "Where are retries handled?"), ("assistant", "In the payment client.")]
INDEX = (
    "import json; from tests.helpers import HashingEmbedder;"
    "from wherein.history.refresh import index_history;"
    "s = index_history(embedder=HashingEmbedder());"
    "print(json.dumps({'conversations': s.conversations, 'unreadable': s.unreadable}))"
)


def test_a_symlinked_transcript_is_not_indexed_and_the_note_names_it(homes, tmp_path, counting):
    write_lines(homes["projects"] / "good.jsonl", claude_conversation("good", TALK))
    outside = write_lines(tmp_path / "elsewhere.jsonl", claude_conversation("other", TALK))
    link = homes["projects"] / "linked.jsonl"
    link.symlink_to(outside)
    summary = index_history(embedder=counting)
    assert summary.conversations == 1
    assert summary.unreadable == [f"{link}: it is a symbolic link"]


def test_fifos_devices_and_huge_transcripts_do_not_stall_the_index(homes, tmp_path):
    write_lines(homes["projects"] / "good.jsonl", claude_conversation("good", TALK))
    outside = write_lines(tmp_path / "elsewhere.jsonl", claude_conversation("other", TALK))
    planted = plant_special_files(homes["projects"], outside)
    done = run_child(INDEX, env=dict(os.environ))
    assert (done.returncode, done.stderr) == (0, "")
    out = strict_json(done.stdout)
    assert out["conversations"] == 1
    skipped = "\n".join(out["unreadable"])
    for path in planted.values():
        assert str(path) in skipped


def test_a_message_time_out_of_range_is_kept_without_a_date(homes, counting):
    lines = [
        claude_user("s", 0, "Where are retries handled?", timestamp="0001-01-01T00:00:00+14:00"),
        claude_assistant("s", 1, "m1", [text("In the payment client.")]),
    ]
    write_lines(homes["projects"] / "s.jsonl", lines)
    assert index_history(embedder=counting).messages == 2
    result = search_history("Where are retries handled?", embedder=counting.inner)
    (quote,) = result.results
    assert (quote.position, quote.date) == (1, None)
    json.dumps(result.to_json(), allow_nan=False)
