"""Search by meaning over conversations, one row per conversation, with the real default model."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from tests.helpers import HashingEmbedder
from tests.history.builders import PROJECT, claude_conversation, write_lines
from wherein.embedding.base import EmbedderIdentity
from wherein.errors import EmbedderError, HistoryMissing, UsageError
from wherein.history.quotes import ASSISTANT_LABEL, quote_lines
from wherein.history.refresh import index_history
from wherein.history.search import search_history

QUERY = "retrying transient network failures"
TARGET = [
    (
        "user",
        "The nightly supplier sync died at 3am because their server hiccuped once. Can we "
        "make it wait and have another go instead of giving up straight away?",
    ),
    (
        "assistant",
        "Yes: when the download raises a connection error, sleep, then try again, "
        "doubling the pause each time, and stop after five attempts.",
    ),
    ("user", "Keep the cap at five attempts."),
]
CI = [
    ("user", "Why did the build break this morning?"),
    ("assistant", "The failures were pip downloads timing out on the runner's slow network."),
]
PAGING = [
    ("user", "How should the orders endpoint page its results?"),
    ("assistant", "Keyset pagination with an opaque cursor; fifty rows by default."),
]
IMAGE = [
    ("user", "The container image is two gigabytes."),
    ("assistant", "A two-stage build drops the compilers; it is 310 MB now."),
]
CONVERSATIONS = {"target": TARGET, "ci": CI, "paging": PAGING, "image": IMAGE}


@pytest.fixture
def corpus(homes):
    for session, turns in CONVERSATIONS.items():
        write_lines(homes["projects"] / f"{session}.jsonl", claude_conversation(session, turns))
    return homes


def _substring_hits(query: str) -> set[str]:
    """Conversations where any word of the query occurs as a substring, case-insensitively."""
    words = re.findall(r"\w+", query.lower())
    return {
        session
        for session, turns in CONVERSATIONS.items()
        if any(word in text.lower() for _, text in turns for word in words)
    }


def test_finds_by_meaning_a_conversation_no_substring_search_would(corpus, minilm):
    assert "target" not in _substring_hits(QUERY)
    assert _substring_hits(QUERY) == {"ci"}  # keywords alone point at the wrong conversation
    index_history(embedder=minilm)
    result = search_history(QUERY, limit=2, embedder=minilm)
    found = {r.conversation: r for r in result.results}
    assert "target" in found
    assert found["target"].text in {text for _, text in TARGET}
    assert set(found) == {"target", "ci"}


def test_one_row_per_conversation_names_the_message_that_matched(corpus, minilm):
    index_history(embedder=minilm)
    result = search_history("five attempts", limit=4, embedder=minilm)
    sessions = [r.conversation for r in result.results]
    assert len(sessions) == len(set(sessions)) and sessions[0] == "target"
    top = result.results[0]
    assert (top.position, top.count, top.author, top.project) == (3, 3, "user", PROJECT)
    assert top.text == TARGET[2][1] and top.date == "2026-11-02T10:00:02Z"
    assert top.to_json() == {
        "conversation": "target",
        "source": "claude",
        "project": PROJECT,
        "similarity": round(top.similarity, 4),
        "matched": {
            "position": 3,
            "author": "user",
            "date": "2026-11-02T10:00:02Z",
            "text": "Keep the cap at five attempts.",
        },
    }


def test_assistant_lines_are_labelled_as_a_models_earlier_output(corpus, minilm):
    index_history(embedder=minilm)
    result = search_history("pip downloads timing out", limit=1, embedder=minilm)
    (quote,) = result.results
    assert quote.author == "assistant"
    lines = quote_lines(quote)
    assert (
        lines[1]
        == ASSISTANT_LABEL
        == ("assistant wrote (a model's earlier output, not verified fact):")
    )
    assert lines[2] == "| " + CI[1][1]


def test_a_query_vector_of_the_wrong_width_is_refused(corpus):
    index_history(embedder=HashingEmbedder())

    class Narrow(HashingEmbedder):
        def embed(self, texts):
            return np.ones((len(texts), 8), dtype=np.float32) / np.sqrt(8)

    with pytest.raises(EmbedderError, match="8 dimensions but the history index holds 64"):
        search_history("orders", embedder=Narrow())


def test_vectors_of_another_embedder_are_never_compared(corpus):
    index_history(embedder=HashingEmbedder())

    class Other(HashingEmbedder):
        identity = EmbedderIdentity("test-other", "bag", 64)

    with pytest.raises(EmbedderError, match="wherein history index"):
        search_history("orders", embedder=Other())


def test_search_before_any_index_says_how_to_build_one(corpus):
    with pytest.raises(HistoryMissing, match="Run 'wherein history index' first"):
        search_history("orders", embedder=HashingEmbedder())


@pytest.mark.parametrize("query, limit", [("   ", None), ("orders", 0), ("orders", 51)])
def test_an_empty_query_or_a_limit_out_of_range_is_a_usage_error(corpus, query, limit):
    index_history(embedder=HashingEmbedder())
    with pytest.raises(UsageError):
        search_history(query, limit=limit, embedder=HashingEmbedder())


def test_a_transcript_indexing_skips_is_not_called_new_at_every_search(corpus, tmp_path):
    # A linked, FIFO or folder `*.jsonl` is skipped as unreadable by indexing; the search
    # counted it as new every time, and indexing again never quieted it.
    elsewhere = tmp_path / "elsewhere.jsonl"
    write_lines(elsewhere, claude_conversation("linked", PAGING))
    (corpus["projects"] / "linked.jsonl").symlink_to(elsewhere)
    os.mkfifo(corpus["projects"] / "pipe.jsonl")
    (corpus["projects"] / "folder.jsonl").mkdir()
    index_history(embedder=HashingEmbedder())
    result = search_history("orders", embedder=HashingEmbedder())
    assert not any("new or changed" in warning for warning in result.warnings), result.warnings


def test_search_warns_when_transcripts_changed_since_indexing(corpus):
    index_history(embedder=HashingEmbedder())
    write_lines(corpus["projects"] / "late.jsonl", claude_conversation("late", PAGING))
    (corpus["projects"] / "image.jsonl").unlink()
    result = search_history("orders", embedder=HashingEmbedder())
    assert result.warnings == (
        "1 transcripts are new or changed and 1 are gone since the history index was built; "
        "run 'wherein history index' to include them.",
    )
