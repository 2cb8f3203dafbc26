"""Search the history index: BM25 and vectors over messages, fused by RRF, one row per conversation.

A result is a quotation: the verbatim message that matched, with its conversation, position,
author and date. Nothing here writes anything: search opens the index, ranks and returns.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wherein.config import Settings, load_settings
from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError, UsageError
from wherein.history.corpus import HistoryCorpus
from wherein.history.embedder import local_embedder
from wherein.history.records import format_date
from wherein.history.store import HistoryStore, history_index_path, open_history_store
from wherein.history.transcripts import find_transcripts
from wherein.retrieval.corpus import fused_order, query_orders

__all__ = [
    "DEFAULT_LIMIT",
    "EMBEDDER_KEY",
    "MAX_LIMIT",
    "HistoryResult",
    "Quotation",
    "search_history",
]

DEFAULT_LIMIT = 5
MAX_LIMIT = 50
# Messages each ranker hands to fusion. Several messages of one conversation can hold the top
# places, so the pool is deeper than the conversations asked for.
CANDIDATES_PER_RANKER = 100  # as for code (wherein.code_ranking)
CANDIDATES_PER_RESULT = 20
EMBEDDER_KEY = "embedder"


@dataclass(frozen=True)
class Quotation:
    """One conversation, named by the message in it that matched best, quoted verbatim."""

    rank: int
    conversation: str
    source: str
    project: str
    transcript: str
    similarity: float | None
    position: int
    count: int
    author: str
    date: str | None
    text: str

    def to_json(self) -> dict[str, Any]:
        similarity = None if self.similarity is None else round(self.similarity, 4)
        return {
            "conversation": self.conversation,
            "source": self.source,
            "project": self.project,
            "similarity": similarity,
            "matched": {
                "position": self.position,
                "author": self.author,
                "date": self.date,
                "text": self.text,
            },
        }


@dataclass(frozen=True)
class HistoryResult:
    query: str
    results: tuple[Quotation, ...]
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [q.to_json() for q in self.results],
            "warnings": list(self.warnings),
        }


def search_history(
    query: str,
    *,
    limit: int | None = None,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    environ: Mapping[str, str] | None = None,
) -> HistoryResult:
    """The conversations that best answer `query`, best first, at most `limit`.

    Args:
        settings: the user's settings (no workspace file: history belongs to no repository);
            loaded when not given.
        embedder: used as given (tests); otherwise `local_embedder(settings)`.

    Raises:
        UsageError: an empty query or a limit out of range.
        HistoryMissing: no history index yet.
        ConfigError: the configured embedder would send text off this machine.
        NoLocalEmbedder: no local embedder answered.
        EmbedderError: the index holds another embedder's vectors, or the query vector's
            width differs from theirs.
    """
    text = query.strip()
    if not text:
        raise UsageError("The query is empty. Say what the conversation was about.")
    limit = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"--limit {limit} is not allowed: ask for 1 to {MAX_LIMIT} results.")
    store = open_history_store(history_index_path(environ), create=False)
    try:
        if embedder is None:
            embedder = local_embedder(settings or load_settings(None, environ))
        warnings = _staleness(store, environ)
        results = _rank(store, text, limit, embedder)
    finally:
        store.close()
    return HistoryResult(text, tuple(results), tuple(warnings))


def _rank(store: HistoryStore, query: str, limit: int, embedder: Embedder) -> list[Quotation]:
    stored = store.get_meta(EMBEDDER_KEY)
    if stored is not None and stored != embedder.identity.key():
        raise EmbedderError(
            f"The history index holds vectors from {stored}, but the configured embedder is "
            f"{embedder.identity.key()}. Run 'wherein history index' to re-embed with it."
        )
    if not store.has_messages():
        return []
    depth = max(CANDIDATES_PER_RANKER, limit * CANDIDATES_PER_RESULT)
    corpus = HistoryCorpus(store, embedder)
    ranked = list(fused_order(*query_orders(corpus, query, depth)))  # ties keep BM25's first
    rows = store.message_rows(ranked)
    results: list[Quotation] = []
    seen: set[int] = set()
    for message_id in ranked:
        row = rows.get(message_id)
        if row is None or row.conversation_id in seen:
            continue
        seen.add(row.conversation_id)
        results.append(
            Quotation(
                rank=len(results) + 1,
                conversation=row.session,
                source=row.source,
                project=row.project,
                transcript=row.path,
                similarity=corpus.similarity(message_id),
                position=row.position,
                count=row.count,
                author=row.author,
                date=format_date(row.time),
                text=row.text,
            )
        )
        if len(results) == limit:
            break
    return results


def _staleness(store: HistoryStore, environ: Mapping[str, str] | None) -> list[str]:
    """Say when transcripts changed since the index was built, or messages lack a vector."""
    warnings = []
    states = store.conversation_states()
    changed = 0
    found = set()
    for transcript in find_transcripts(environ):
        key = str(transcript.path)
        found.add(key)
        state = states.get(key)
        try:
            info = os.stat(transcript.path, follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):  # a link, FIFO or folder: indexing skips it too
            continue
        if state is None or (info.st_size, info.st_mtime_ns) != (
            state.fingerprint.size,
            state.fingerprint.mtime_ns,
        ):
            changed += 1
    gone = len(set(states) - found)
    if changed or gone:
        warnings.append(
            f"{changed} transcripts are new or changed and {gone} are gone since the history "
            "index was built; run 'wherein history index' to include them."
        )
    pending = store.pending_count()
    if pending:
        warnings.append(
            f"{pending} messages have no vector yet and rank by keywords only; run 'wherein "
            "history index' to embed them."
        )
    return warnings
