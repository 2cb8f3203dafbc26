"""A history index written before the FTS5 engine (schema 1: terms and postings rows) is
upgraded in place when opened: its keywords are rebuilt from the stored messages, and no
transcript is read or message embedded again."""

from __future__ import annotations

import sqlite3
from collections import Counter

from tests.helpers import HashingEmbedder
from tests.history.builders import claude_conversation, write_lines
from tests.history.test_search import CONVERSATIONS
from wherein.history.refresh import index_history
from wherein.history.search import search_history
from wherein.history.store import history_index_path
from wherein.ranking.tokens import tokenize

# The tables schema 1 kept its keywords in, as its m001 created them.
SCHEMA_1_KEYWORDS = (
    "CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE)",
    "CREATE TABLE postings (term_id INTEGER NOT NULL, message_id INTEGER NOT NULL, "
    "tf INTEGER NOT NULL, PRIMARY KEY (term_id, message_id)) WITHOUT ROWID",
    "CREATE INDEX postings_by_message ON postings(message_id)",
)


def _as_schema_1(path) -> None:
    """Turn an index into what the postings-era code wrote: its rows, its keywords tables."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.execute("DROP TABLE lexical")
    for statement in SCHEMA_1_KEYWORDS:
        conn.execute(statement)
    term_ids: dict[str, int] = {}
    for message_id, text in conn.execute("SELECT id, text FROM messages").fetchall():
        for term, count in Counter(tokenize(text)).items():
            if term not in term_ids:
                term_ids[term] = conn.execute(
                    "INSERT INTO terms(term) VALUES (?)", (term,)
                ).lastrowid
            conn.execute(
                "INSERT INTO postings(term_id, message_id, tf) VALUES (?, ?, ?)",
                (term_ids[term], message_id, count),
            )
    conn.execute("INSERT INTO meta(key, value) VALUES ('mean_idf', '0.7')")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("COMMIT")
    conn.close()


def _tables(path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def test_a_schema_1_history_index_is_upgraded_and_answers_as_before(homes):
    for session, turns in CONVERSATIONS.items():
        write_lines(homes["projects"] / f"{session}.jsonl", claude_conversation(session, turns))
    embedder = HashingEmbedder()
    index_history(embedder=embedder)
    before = search_history("keyset pagination cursor", embedder=embedder)
    path = history_index_path()
    _as_schema_1(path)
    assert {"terms", "postings"} <= _tables(path) and "lexical" not in _tables(path)

    after = search_history("keyset pagination cursor", embedder=embedder)
    assert after.to_json() == before.to_json()
    assert after.results[0].conversation == "paging"
    tables = _tables(path)
    assert "lexical" in tables and not {"terms", "postings"} & tables
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (3,)
        assert conn.execute("SELECT count(*) FROM meta WHERE key = 'mean_idf'").fetchone() == (0,)
    finally:
        conn.close()
    summary = index_history(embedder=embedder)
    assert (summary.read, summary.embedded, summary.cleared) == (0, 0, False)


def test_a_damaged_history_lexical_index_is_rebuilt_and_said_once(homes):
    for session, turns in CONVERSATIONS.items():
        write_lines(homes["projects"] / f"{session}.jsonl", claude_conversation(session, turns))
    embedder = HashingEmbedder()
    index_history(embedder=embedder)
    path = history_index_path()
    conn = sqlite3.connect(path)
    # id 10 is FTS5's structure record (sqlite.org/fts5.html, "FTS5 shadow tables"): damage
    # SQLite's quick_check does not see.
    conn.execute("UPDATE lexical_data SET block = zeroblob(length(block)) WHERE id = 10")
    conn.commit()
    conn.close()
    summary = index_history(embedder=embedder)
    said = [notice for notice in summary.notices if "lexical index" in notice]
    assert len(said) == 1 and "rebuilt it from the terms" in said[0], summary.notices
    result = search_history("keyset pagination cursor", embedder=embedder)
    assert result.results[0].conversation == "paging"
    assert index_history(embedder=embedder).notices == []
