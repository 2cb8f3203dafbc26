"""The search pipeline: warm a bounded slice of the index, rank, cut excerpts.

The CLI and the agent tool both call `run_search`; neither ranks on its own.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.embedding.registry import create_embedder
from wherein.errors import EmbedderError, IndexUnwritable, UsageError
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.refresh import embed_pending, index_lock, refresh_index
from wherein.index.store import ChunkRow, Store, open_store
from wherein.ranking.bm25 import average_idf, bm25_scores
from wherein.ranking.expansion import Expansion, start_expansion
from wherein.ranking.fusion import fuse_rrf
from wherein.ranking.rerank import rerank
from wherein.ranking.signals import SIGNALS, Candidate, apply_signals, copied_directories
from wherein.ranking.step import OFF, StepStatus
from wherein.ranking.tokens import query_tokens
from wherein.ranking.vector import similarities
from wherein.roots import plan_roots
from wherein.scope import (
    WEAK_GAP,
    Scope,
    narrowest_prefix,
    relative_folder,
    resolve_scope,
    scope_gap,
    unmatched_notice,
    weak_notice,
)

__all__ = ["Hit", "Scope", "SearchResult", "resolve_scope", "run_search"]

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 200
# Each ranker contributes this many candidates to the fusion.
CANDIDATES_PER_RANKER = 100
# Long lines are cut too, so a bounded excerpt stays bounded in characters.
MAX_EXCERPT_LINE_CHARS = 400
# The orders of the model's phrasings count half as much as the query's own: a phrasing is a
# guess at what the user meant, and the original must not be outvoted by one (expansion).
PHRASING_WEIGHT = 0.5


@dataclass(frozen=True)
class Hit:
    """One ranked excerpt."""

    rank: int
    path: str
    root: str
    source_path: str | None
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    language: str
    score: float
    similarity: float | None
    stale: bool
    truncated: bool
    excerpt: str
    header: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "path": self.path,
            "root": self.root,
            "source_path": self.source_path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "symbols": list(self.symbols),
            "language": self.language,
            "score": self.score,
            "similarity": self.similarity,
            "stale": self.stale,
            "truncated": self.truncated,
            "excerpt": self.excerpt,
        }


@dataclass(frozen=True)
class SearchResult:
    """Everything one search returns; `to_json` is the `search --json` contract."""

    query: str
    workspace: str
    scope: Scope
    hits: list[Hit]
    pending_files: int
    pending_chunks: int
    warnings: list[str] = field(default_factory=list)
    returned_chars: int = 0
    source_chars: int = 0
    expansion: StepStatus = StepStatus(OFF)
    rerank: StepStatus = StepStatus(OFF)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "workspace": self.workspace,
            "scope": self.scope.to_json(),
            "results": [hit.to_json() for hit in self.hits],
            "pending": {"files": self.pending_files, "chunks": self.pending_chunks},
            "warnings": list(self.warnings),
            "usage": {"returned_chars": self.returned_chars, "source_chars": self.source_chars},
            "expansion": self.expansion.to_json(),
            "rerank": self.rerank.to_json(),
        }


def _validate(query: str, limit: int) -> tuple[str, list[str]]:
    warnings = []
    text = " ".join(query.split())
    if not text:
        raise UsageError("The query is empty. Say what you are looking for, in words or a name.")
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        warnings.append(f"The query was cut to its first {MAX_QUERY_CHARS} characters.")
    if limit < 1:
        raise UsageError(f"--limit {limit} is not allowed: ask for at least 1 result.")
    if limit > MAX_LIMIT:
        raise UsageError(f"--limit {limit} is too large: ask for at most {MAX_LIMIT} results.")
    return text, warnings


def run_search(
    query: str,
    *,
    workspace: Path,
    settings: Settings,
    limit: int | None = None,
    path: str | None = None,
    focus: str | None = None,
    cold_budget_s: float | None = None,
    embedder: Embedder | None = None,
    signals: frozenset[str] = SIGNALS,
    cancel: threading.Event | None = None,
) -> SearchResult:
    """Answer one query over the workspace, refreshing the index within a time budget.

    `cancel` stops the optional model steps (expansion, rerank) at once: none starts after
    it is set, and the search returns what the index alone ranks, saying so in their status.

    Raises:
        UsageError: an empty query, a bad limit, or a path outside the workspace.
        WorkspaceError, IndexError_: the workspace or its index cannot be used.
    """
    limit = settings["search.limit"] if limit is None else limit
    text, warnings = _validate(query, limit)
    scope = resolve_scope(workspace, focus, settings)
    under = relative_folder(workspace, path, "--path") if path else None
    prefixes = narrowest_prefix(scope.focus, under)
    plan = plan_roots(workspace, settings["scope.source_roots"], scope.focus)
    warnings.extend(plan.problems)
    budget = settings["search.cold_budget_s"] if cold_budget_s is None else cold_budget_s
    directory = index_dir(workspace)
    # Started first so the model thinks while the index is refreshed; collected in _rank.
    steps = _Steps(start_expansion(text, settings, cancel), settings, cancel)
    try:
        return _search_index(
            directory,
            text,
            limit,
            workspace,
            settings,
            scope,
            prefixes,
            plan,
            budget,
            embedder,
            signals,
            steps,
            list(warnings),
            False,
        )
    except sqlite3.DatabaseError:
        # A search skips the whole-file integrity scan; a read that fails says the file is
        # damaged, so open it again the way `wherein index` does: checked, moved aside if bad.
        return _search_index(
            directory,
            text,
            limit,
            workspace,
            settings,
            scope,
            prefixes,
            plan,
            budget,
            embedder,
            signals,
            steps,
            list(warnings),
            True,
        )


def _search_index(directory, text, limit, workspace, settings, scope, prefixes, plan, budget,
                  embedder, signals, steps, warnings, verify) -> SearchResult:  # fmt: skip
    with index_lock(directory, wait=False) as locked:
        store = open_store(directory / INDEX_FILE_NAME, verify=verify)
        try:
            if store.notice:
                warnings.append(store.notice)
                store.notice = None  # said once; _warm reports only what happens next
            embedder = _warm(store, plan.roots, settings, locked, budget, prefixes, embedder,
                             warnings)  # fmt: skip
            ranked = store
            if scope.focus:  # the ranking and the scope check share query vectors and one read
                ranked = _VectorMemo(store)
                embedder = _QueryMemo(embedder) if embedder is not None else None
            hits, source_chars = _rank(ranked, text, limit, prefixes, embedder, settings, signals,
                                       str(workspace), warnings, steps)  # fmt: skip
            if scope.focus:
                warnings.extend(_scope_notice(ranked, scope.focus, embedder, text, hits))
            pending_files, pending_chunks = store.pending_count()
        finally:
            store.close()
    returned = sum(len(hit.excerpt) for hit in hits)
    return SearchResult(text, str(workspace), scope, hits, pending_files, pending_chunks,
                        warnings, returned, source_chars, *steps.statuses())  # fmt: skip


class _Steps:
    """The optional model steps of one search, and what became of each."""

    def __init__(self, expansion: Expansion, settings: Settings, cancel) -> None:
        self._expansion = expansion
        self._settings = settings
        self._cancel = cancel
        self.expansion: StepStatus | None = None
        self.rerank = StepStatus(OFF)

    def phrasings(self) -> list[str]:
        """The model's phrasings of the query (the original is ranked already), or []."""
        queries, self.expansion = self._expansion.wait()
        return queries[1:]

    def reorder(self, query: str, ranked: list[Candidate], rows) -> list[Candidate]:
        window = ranked[: self._settings["rerank.candidates"]]
        passages = [f"{rows[c.chunk_id].path}:{c.start_line}-{c.end_line}\n"
                    f"{rows[c.chunk_id].text}" for c in window]  # fmt: skip
        ranked, self.rerank = rerank(query, ranked, passages, self._settings, self._cancel)
        return ranked

    def statuses(self) -> tuple[StepStatus, StepStatus]:
        expansion = self.expansion
        if expansion is None:  # the index had nothing to rank, so its answer was not awaited
            pending = self._expansion.pending
            expansion = StepStatus(OFF, "the index had nothing to rank") if pending.started \
                else pending.wait()[1]  # fmt: skip
        return expansion, self.rerank


class _QueryMemo:
    """An embedder that answers a repeated one-text call (a query) from memory."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.identity = inner.identity
        self._seen: dict[str, np.ndarray] = {}

    def embed(self, texts):
        if len(texts) == 1 and texts[0] in self._seen:
            return self._seen[texts[0]]
        vectors = self.inner.embed(texts)
        if len(texts) == 1:
            self._seen[texts[0]] = vectors
        return vectors


class _VectorMemo:
    """The store, with every vector read once per search: reading them is the slowest step
    on a large index, and the ranking and the scope check both need them."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._all: tuple[np.ndarray, np.ndarray] | None = None

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def vectors(self, chunk_ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        if self._all is None:
            self._all = self._store.vectors()
        ids, matrix = self._all
        if chunk_ids is None or len(ids) == 0:
            return ids, matrix
        keep = np.isin(ids, chunk_ids)
        return ids[keep], matrix[keep]


def _scope_notice(store: Store, focus: str, embedder, query: str, hits: list[Hit]) -> list[str]:
    """Warn when the best match inside the focus is weak beside the rest of the index.

    With vectors: `scope_gap` over every embedded chunk. Without (nothing embedded yet, or
    no embedder): only the plain case, no hit inside while the query's words occur outside.
    """
    if embedder is not None and store.get_meta("embedder") == embedder.identity.key():
        vector_ids, matrix = store.vectors()
        query_vector = _query_vector(embedder, query, None) if len(vector_ids) else None
        if query_vector is not None:
            scope_ids, _ = store.chunk_table([focus])
            gap = scope_gap(similarities(query_vector, matrix), np.isin(vector_ids, scope_ids))
            if gap is not None:
                return [weak_notice(focus, gap)] if gap >= WEAK_GAP else []
    if not hits and any(len(store.postings(term)[0]) for term in query_tokens(query)):
        return [unmatched_notice(focus)]
    return []


def _warm(store, roots, settings, locked, budget, prefixes, embedder, warnings):
    """Bring the index up to date and embed what fits the budget; returns the embedder."""
    if locked:
        try:
            report = refresh_index(
                store, roots, max_file_bytes=settings["walk.max_file_bytes"],
            )  # fmt: skip
        except IndexUnwritable as err:
            # A full disk must not cost the answer: rank what the index already holds.
            warnings.append(f"{err} Searched the index as it was.")
            locked = False
        else:
            if report.unreadable:
                warnings.append(f"{len(report.unreadable)} unreadable file(s) skipped.")
    else:
        warnings.append(
            "Another wherein process is updating this index; results may miss recent changes."
        )
    if embedder is None:
        try:
            embedder = create_embedder(settings)
        except EmbedderError as err:
            warnings.append(f"{err} Ranked by keywords only.")
            return None
    if locked:
        try:
            embed_pending(store, embedder, budget_s=budget, paths_first=prefixes)
        except EmbedderError as err:
            warnings.append(f"{err} Ranked by keywords only.")
            return None
        except IndexUnwritable as err:
            warnings.append(f"{err} Vectors not yet stored were left pending.")
        if store.notice:
            warnings.append(store.notice)
    return embedder


def _rank(store: Store, query, limit, prefixes, embedder, settings, signals, workspace_root,
          warnings=None, steps: _Steps | None = None):  # fmt: skip
    ids, lengths = store.chunk_table(prefixes)
    if len(ids) == 0:
        return [], 0
    mean_idf = _mean_idf(store, prefixes, len(ids))
    orders = [_bm25_order(store, ids, lengths, query, mean_idf)]

    similarity_of: dict[int, float] = {}
    vector_ids = matrix = None
    if embedder is not None and store.get_meta("embedder") == embedder.identity.key():
        vector_ids, matrix = store.vectors(ids if prefixes else None)
        query_vector = _query_vector(embedder, query, warnings) if len(vector_ids) else None
        if query_vector is not None:
            sims = similarities(query_vector, matrix)
            vector_order = _top(sims, CANDIDATES_PER_RANKER, positive=False)
            orders.append([int(vector_ids[i]) for i in vector_order])
            similarity_of = {int(vector_ids[i]): float(sims[i]) for i in vector_order}
        else:
            vector_ids = matrix = None
    weights = None
    phrasings = steps.phrasings() if steps is not None else []
    if phrasings:  # after the query's own orders, each phrasing's BM25 then vector order
        vector_orders = _vector_orders(embedder, phrasings, vector_ids, matrix)
        more = []
        for n, phrasing in enumerate(phrasings):
            more.append(_bm25_order(store, ids, lengths, phrasing, mean_idf))
            more += vector_orders[n : n + 1]
        weights = [1.0] * len(orders) + [PHRASING_WEIGHT] * len(more)
        orders += more
    fused = fuse_rrf(orders, weights)
    rows = store.chunk_rows(list(fused))
    candidates = [
        Candidate(cid, rows[cid].path, rows[cid].start_line, rows[cid].end_line,
                  rows[cid].symbols, score)
        for cid, score in fused.items()
        if cid in rows
    ]  # fmt: skip
    copies = copied_directories(store.file_paths()) if "penalty" in signals else frozenset()
    ranked = _drop_overlaps(apply_signals(query, candidates, signals, copies))
    if steps is not None:
        ranked = steps.reorder(query, ranked, rows)
    ranked = ranked[:limit]
    excerpt_lines = settings["search.excerpt_lines"]
    hits = []
    sizes: dict[str, int] = {}
    for rank, candidate in enumerate(ranked, start=1):
        row = rows[candidate.chunk_id]
        sizes[row.path] = row.size
        hits.append(_hit(rank, row, candidate.score, similarity_of.get(row.id), excerpt_lines,
                         workspace_root))  # fmt: skip
    return hits, sum(sizes.values())


def _bm25_order(store: Store, ids: np.ndarray, lengths, query: str, mean_idf: float) -> list[int]:
    """Chunk ids holding a query term, by BM25 score, best first.

    Membership, not a positive score, decides: in a collection of one or two chunks
    Okapi's idf is negative for every term, and the only match must still be found.
    """
    terms = query_tokens(query)
    postings = {}
    matched = np.zeros(len(ids), dtype=bool)
    for term in terms:
        chunk_ids, counts = store.postings(term)
        positions = np.searchsorted(ids, chunk_ids)
        positions = np.clip(positions, 0, len(ids) - 1)
        keep = ids[positions] == chunk_ids
        postings[term] = (positions[keep], counts[keep])
        matched[positions[keep]] = True
    candidates = np.flatnonzero(matched)
    if len(candidates) == 0:
        return []
    bm25 = bm25_scores(terms, postings, lengths, mean_idf)[candidates]
    best = _top(bm25, CANDIDATES_PER_RANKER, positive=False)
    return [int(ids[candidates[i]]) for i in best]


def _vector_orders(embedder, texts: list[str], vector_ids, matrix) -> list[list[int]]:
    """One vector order per phrasing, in one embedding call; [] without vectors or on failure."""
    if matrix is None:
        return []
    try:
        vectors = embedder.embed(texts)
    except EmbedderError:
        return []  # the query's own vector order stands; the phrasings' BM25 orders too
    orders = []
    for vector in vectors:
        sims = similarities(vector, matrix)
        orders.append([int(vector_ids[i]) for i in _top(sims, CANDIDATES_PER_RANKER, False)])
    return orders


def _query_vector(embedder: Embedder, query: str, warnings: list[str] | None):
    """The query's vector, or None when the embedder fails now: keywords still rank (fail open)."""
    try:
        return embedder.embed([query])[0]
    except EmbedderError as err:
        if warnings is not None:
            warnings.append(f"{err} Ranked by keywords only.")
        return None


def _mean_idf(store: Store, prefixes, n_docs: int) -> float:
    generation = store.get_meta("generation") or "0"
    if not prefixes and store.get_meta("mean_idf_generation") == generation:
        return float(store.get_meta("mean_idf") or 0.0)
    value = average_idf(store.document_frequencies(prefixes), n_docs)
    if not prefixes:
        try:
            with store.transaction() as conn:
                store.set_meta(conn, "mean_idf", repr(value))
                store.set_meta(conn, "mean_idf_generation", generation)
        except Exception:  # noqa: BLE001 - a cache write may fail on a read-only index
            pass
    return value


def _top(scores: np.ndarray, n: int, positive: bool) -> np.ndarray:
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    n = min(n, len(scores))
    picked = np.argpartition(-scores, n - 1)[:n]
    picked = picked[np.argsort(-scores[picked], kind="stable")]
    if positive:
        picked = picked[scores[picked] > 0]
    return picked


def _drop_overlaps(candidates: list[Candidate]) -> list[Candidate]:
    """Keep the better of two chunks whose lines overlap in one file."""
    kept: list[Candidate] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    for c in candidates:
        taken = spans.setdefault(c.path, [])
        if any(c.start_line <= end and start <= c.end_line for start, end in taken):
            continue
        taken.append((c.start_line, c.end_line))
        kept.append(c)
    return kept


def _hit(rank: int, row: ChunkRow, score: float, similarity, excerpt_lines: int,
         workspace_root: str) -> Hit:  # fmt: skip
    lines = row.text.split("\n")
    truncated = len(lines) > excerpt_lines
    lines = lines[:excerpt_lines]
    clipped = [line[:MAX_EXCERPT_LINE_CHARS] for line in lines]
    truncated = truncated or clipped != lines
    end_line = row.start_line + len(lines) - 1 if truncated else row.end_line
    fs_path = os.fsdecode(row.fs_path)
    return Hit(
        rank=rank,
        path=row.path,
        root=row.root,
        source_path=None if row.root == workspace_root else fs_path,
        start_line=row.start_line,
        end_line=end_line,
        symbols=row.symbols,
        language=row.language,
        score=round(float(score), 6),
        similarity=None if similarity is None else round(float(similarity), 4),
        stale=_is_stale(fs_path, row.size, row.mtime_ns),
        truncated=truncated,
        excerpt="\n".join(clipped),
        header=row.header,
    )


def _is_stale(fs_path: str, size: int, mtime_ns: int) -> bool:
    try:
        info = os.stat(fs_path, follow_symlinks=False)
    except OSError:
        return True
    return info.st_size != size or info.st_mtime_ns != mtime_ns
