"""The keyword ranker counts a message only when it holds at least half of the query's words."""

from __future__ import annotations

from tests.helpers import HashingEmbedder
from tests.history.builders import claude_conversation, write_lines
from wherein.history.keywords import keyword_order
from wherein.history.refresh import index_history
from wherein.history.store import history_index_path, open_history_store

MESSAGES = {
    "one-word": "Three test failures on main this morning.",
    "two-words": "CI failures came from the network dropping mid-install.",
    "all-words": "Retrying transient network failures with a doubling pause.",
    "none": "Keyset pagination with an opaque cursor.",
}


def _order(query: str) -> list[str]:
    store = open_history_store(history_index_path(), create=False)
    try:
        order = keyword_order(store, query, depth=10)
        return [store.message_rows([i])[i].session for i in order]
    finally:
        store.close()


def test_a_long_query_needs_half_its_words_and_a_short_one_needs_one(homes):
    for session, words in MESSAGES.items():
        write_lines(
            homes["projects"] / f"{session}.jsonl", claude_conversation(session, [("user", words)])
        )
    index_history(embedder=HashingEmbedder())
    assert _order("retrying transient network failures") == ["all-words", "two-words"]
    assert set(_order("failures")) == {"one-word", "two-words", "all-words"}
    assert set(_order("test failures")) == {"one-word", "two-words", "all-words"}
    # Stems and stopwords: "retried" meets "retrying", and "the" is not a word to hold.
    assert set(_order("the retried pagination")) == {"all-words", "none"}
