"""Incremental indexing by conversation fingerprint: grown, unchanged, deleted, re-embedded."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import numpy as np
import pytest

from tests.helpers import HashingEmbedder
from tests.history.builders import (
    append_lines,
    claude_assistant,
    claude_conversation,
    claude_user,
    text,
    write_lines,
)
from tests.history.conftest import CountingEmbedder
from wherein.embedding.base import EmbedderIdentity
from wherein.errors import EmbedderError, NoLocalEmbedder
from wherein.history.refresh import index_history
from wherein.history.store import history_index_path

TALK = [
    ("user", "How should the orders endpoint page its results?"),
    ("assistant", "Keyset pagination with an opaque cursor."),
    ("user", "And the default page size?"),
    ("assistant", "Fifty, with a maximum of two hundred."),
]


def _rows(sql: str, *params):
    conn = sqlite3.connect(history_index_path())
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _write_two(homes):
    a = write_lines(homes["projects"] / "a.jsonl", claude_conversation("a", TALK))
    b = write_lines(
        homes["projects"] / "b.jsonl",
        claude_conversation(
            "b",
            [
                ("user", "The image is two gigabytes."),
                ("assistant", "Use a two-stage build."),
            ],
        ),
    )
    return a, b


def test_a_cold_index_embeds_every_message_and_a_second_run_nothing(homes, counting):
    _write_two(homes)
    first = index_history(embedder=counting)
    assert (first.conversations, first.messages, first.read, first.embedded) == (2, 6, 2, 6)
    assert sorted(counting.texts) == sorted(
        [t for _, t in TALK] + ["The image is two gigabytes.", "Use a two-stage build."]
    )
    counting.texts.clear()
    again = index_history(embedder=counting)
    assert (again.read, again.embedded, again.messages) == (0, 0, 6)
    assert counting.texts == []


def test_a_conversation_that_grew_embeds_only_its_new_messages(homes, counting):
    a, _ = _write_two(homes)
    index_history(embedder=counting)
    kept = _rows("SELECT id, position FROM messages ORDER BY id")
    counting.texts.clear()
    append_lines(
        a,
        [
            claude_user("a", 10, "Can clients ask for a total count?"),
            claude_assistant("a", 11, "msg-a-11", [text("Only as a cached call.")]),
        ],
    )
    summary = index_history(embedder=counting)
    assert counting.texts == ["Can clients ask for a total count?", "Only as a cached call."]
    assert (summary.read, summary.messages_written, summary.embedded) == (1, 2, 2)
    positions = _rows(
        "SELECT m.position, m.author FROM messages m JOIN conversations c "
        "ON c.id = m.conversation_id WHERE c.session = 'a' ORDER BY m.position"
    )
    assert positions[-2:] == [(5, "user"), (6, "assistant")]
    assert set(kept) <= set(_rows("SELECT id, position FROM messages"))  # old rows untouched


def test_a_touched_but_identical_transcript_is_hashed_not_parsed(homes, counting):
    a, _ = _write_two(homes)
    index_history(embedder=counting)
    os.utime(a, ns=(1, 1))
    summary = index_history(embedder=counting)
    assert (summary.read, summary.embedded) == (0, 0)
    assert _rows("SELECT mtime_ns FROM conversations WHERE session = 'a'") == [(1,)]


def test_a_deleted_transcript_drops_out_with_its_vectors(homes, counting):
    _a, b = _write_two(homes)
    index_history(embedder=counting)
    b.unlink()
    summary = index_history(embedder=counting)
    assert summary.dropped == 1 and summary.conversations == 1
    assert _rows("SELECT DISTINCT session FROM conversations") == [("a",)]
    assert _rows("SELECT count(*) FROM vectors") == [(4,)]
    assert _rows(
        "SELECT count(*) FROM lexical p LEFT JOIN messages m ON m.id = p.rowid WHERE m.id IS NULL"
    ) == [(0,)]


def test_a_different_embedder_clears_the_vectors_and_embeds_again(homes, counting):
    _write_two(homes)
    index_history(embedder=counting)

    class Other(HashingEmbedder):
        identity = EmbedderIdentity("test-other", "bag", 64)

    other = CountingEmbedder(Other())
    summary = index_history(embedder=other)
    assert summary.cleared and summary.embedded == 6 and len(other.texts) == 6
    assert _rows("SELECT value FROM meta WHERE key = 'embedder'") == [("test-other:bag:64",)]


def test_the_transcripts_are_never_written(homes, counting):
    files = _write_two(homes)

    def snapshot():
        return [(hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files]

    before = snapshot()
    index_history(embedder=counting)
    index_history(embedder=counting)
    assert snapshot() == before
    assert history_index_path().is_relative_to(os.environ["WHEREIN_HOME"])


def test_an_embedder_that_stops_answering_leaves_messages_pending_for_the_next_run(homes):
    _write_two(homes)

    class Failing(HashingEmbedder):
        def embed(self, texts):
            raise EmbedderError("The model stopped.")

    with pytest.raises(NoLocalEmbedder, match="No local embedder answered"):
        index_history(embedder=Failing())
    assert _rows("SELECT count(*) FROM messages") == [(6,)]
    assert _rows("SELECT count(*) FROM vectors") == [(0,)]
    assert index_history(embedder=HashingEmbedder()).embedded == 6


def test_vectors_of_the_wrong_shape_are_refused_before_storing(homes):
    _write_two(homes)

    class Narrow(HashingEmbedder):
        def embed(self, texts):
            return np.ones((len(texts), 8), dtype=np.float32)

    with pytest.raises(EmbedderError, match="shape"):
        index_history(embedder=Narrow())
    assert _rows("SELECT count(*) FROM vectors") == [(0,)]
