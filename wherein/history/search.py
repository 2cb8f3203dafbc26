"""Search the history index: BM25 and vectors over messages, fused by RRF, one row per conversation.

A result is a quotation: the verbatim message that matched, with its conversation, position,
author and date. Nothing here writes anything: search opens the index, ranks and returns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wherein.config import Settings, load_settings
from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError, NoLocalEmbedder, UsageError
from wherein.history.embedder import local_embedder
from wherein.history.keywords import keyword_order
from wherein.history.records import format_date
from wherein.history.store import HistoryStore, history_index_path, open_history_store
from wherein.history.transcripts import find_transcripts
from wherein.ranking.fusion import fuse_rrf

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
CANDIDATES_PER_RANKER = 100  # as for code (wherein.search)
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
    orders = [keyword_order(store, query, depth)]
    vector_ids, matrix = store.vectors()
    similarity = np.zeros(0, dtype=np.float32)
    if len(vector_ids):
        try:
            query_vector = embedder.embed([query])[0]
        except EmbedderError as err:
            raise NoLocalEmbedder(
                f"No local embedder answered for the history query: {err} History does not "
                "fall back to keywords alone or to any other embedder."
            ) from err
        if query_vector.shape[-1] != matrix.shape[1]:
            raise EmbedderError(
                f"The query vector has {query_vector.shape[-1]} dimensions but the history "
                f"index holds {matrix.shape[1]}-dimensional vectors. Run 'wherein history "
                "index' to re-embed."
            )
        similarity = matrix @ query_vector.astype(np.float32)
        orders.append([int(vector_ids[i]) for i in _top(similarity, depth)])
    fused = fuse_rrf(orders)
    ranked = sorted(fused, key=fused.__getitem__, reverse=True)  # stable: ties keep BM25 first
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
                similarity=_similarity_of(message_id, vector_ids, similarity),
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


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    n = min(n, len(scores))
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    picked = np.argpartition(-scores, n - 1)[:n]
    return picked[np.argsort(-scores[picked], kind="stable")]


def _similarity_of(message_id: int, vector_ids: np.ndarray, similarity: np.ndarray):
    if len(vector_ids) == 0:
        return None
    at = int(np.searchsorted(vector_ids, message_id))
    if at < len(vector_ids) and vector_ids[at] == message_id:
        return float(similarity[at])
    return None


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
            info = os.stat(transcript.path)
        except OSError:
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
