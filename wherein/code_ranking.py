"""Rank one code index for a request: its corpus's orders, fused, the signals, then excerpts.

`CodeCorpus` is the index in the request's scope as a `retrieval.Corpus`: BM25 over the
chunks in scope (FTS5) and one vector order per tier. Its orders, the orders of the
model's phrasings and of an exact or regex match are fused by rank, the signals (boosts,
penalties, diversity: `wherein.ranking.signals`) reorder the candidates, and the first
`limit` are cut into hits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from wherein.errors import EmbedderError
from wherein.hits import Hit, cut_hit, drop_overlaps
from wherein.index.store import ChunkRow, Store
from wherein.narrowing import Narrowed, lexical_within, narrow
from wherein.ranking.candidates import Candidate, batch_of
from wherein.ranking.postings import Postings
from wherein.ranking.signals import copied_directories, signals_order
from wherein.ranking.tokens import query_tokens
from wherein.related import Origin, Place, find_origin, related_orders
from wherein.resident import InMemoryIndex, ResidentIndex, kept_while_unchanged
from wherein.retrieval.corpus import VectorOrder, query_orders
from wherein.retrieval.fusion import fuse_rrf
from wherein.scope import WEAK_GAP, scope_gap, unmatched_notice, weak_notice
from wherein.search_request import SearchRequest
from wherein.search_steps import SearchSteps
from wherein.tier_view import TierView

__all__ = ["CANDIDATES_PER_RANKER", "CodeCorpus", "rank_chunks", "rank_related", "scope_notice"]

# Each ranker contributes this many candidates to the fusion.
CANDIDATES_PER_RANKER = 100
# RRF's k for code: 30, where the literature's 60 let a chunk middling in both orders outrank
# one that BM25 or the model put near the top alone. Measured with every tier built, on 181
# questions in 23 languages (scripts/bench_languages.py): file MRR@10 0.890 -> 0.903 on the
# first 147, 0.817 -> 0.834 on the last 34; and on the visible sets semble NDCG@10 0.912 either
# way, commits main MRR@10 0.777 -> 0.785 (k 15 and 20 within 0.003 of 30 there).
FUSION_K = 30
# The orders of the model's phrasings count half as much as the query's own: a phrasing is a
# guess at what the user meant, and the original must not be outvoted by one (expansion).
PHRASING_WEIGHT = 0.5


@dataclass(frozen=True)
class CodeCorpus:
    """The chunks of one index within a scope (folders, or the narrowed ids of a filter)."""

    store: Store
    prefixes: list[str]
    narrowed: Narrowed | None
    # The chunk ids in scope, or None: every chunk.
    scope: np.ndarray | None
    view: TierView
    # Where a failing tier says so; None: skipped quietly (a phrasing's orders).
    warnings: list[str] | None
    # The resident in-memory lexical index, when one is built for the store's content.
    postings: Postings | None = None

    def lexical_order(self, query: str, depth: int) -> list[int]:
        """Chunk ids holding a query term, by BM25 score, best first, within the scope: from
        the resident in-memory index when it is built, else from FTS5 (the same order)."""
        terms = query_tokens(query)
        if self.postings is not None:
            found = self.postings.order(terms, depth, self.scope)
        elif self.narrowed is not None:
            found = lexical_within(self.store, terms, depth, self.narrowed.ids)
        else:
            found = self.store.lexical_order(terms, depth, self.prefixes)
        return [cid for cid, _ in found]

    def vector_orders(self, query: str, depth: int) -> list[VectorOrder]:
        return self.view.orders(query, depth, self.warnings)


def rank_chunks(
    store: Store,
    request: SearchRequest,
    view: TierView,
    warnings: list[str],
    steps: SearchSteps | None,
    resident: ResidentIndex | None = None,
) -> tuple[list[Hit], int]:
    """(hits, chars of the files they come from) for the request's query or match."""
    prefixes, text = request.prefixes, request.rank_text
    narrowed = narrow(store, prefixes, request.files, request.match)
    scope = None
    if narrowed is not None:
        scope = narrowed.ids
    elif prefixes:
        scope, _ = store.chunk_table(prefixes)
    if scope is not None:
        if len(scope) == 0:
            return [], 0
        view = view.in_scope(scope)
    elif not kept_while_unchanged(resident, store, "chunks", store.chunk_count):
        return [], 0
    memory = resident.in_memory(store) if resident is not None else None
    postings = memory.postings if memory is not None else None
    corpus = CodeCorpus(store, prefixes, narrowed, scope, view, warnings, postings)
    orders: list[list[int]] = []
    weights: list[float] = []
    similarity_of: dict[int, float] = {}
    if text is not None:
        orders, weights = query_orders(corpus, text, CANDIDATES_PER_RANKER, similarity_of)
    if narrowed is not None and narrowed.counts:  # exact or regex: the most matches first
        orders.append(narrowed.match_order(CANDIDATES_PER_RANKER))
        weights.append(1.0)
    phrasings = steps.phrasings() if steps is not None else []
    if phrasings:  # after the query's own orders, each phrasing's lexical then vector orders
        quiet = replace(corpus, warnings=None)
        for phrasing in phrasings:
            more, their_weights = query_orders(quiet, phrasing, CANDIDATES_PER_RANKER)
            orders += more
            weights += [PHRASING_WEIGHT * weight for weight in their_weights]
    signal_text = request.text if text is None else text
    return _ranked_hits(
        store, request, orders, weights, similarity_of, signal_text, steps, resident, memory
    )


def rank_related(
    store: Store, request: SearchRequest, place: Place, resident: ResidentIndex | None
) -> tuple[list[Hit], int, Origin, set[str]]:
    """(hits, source chars, origin, tiers used) for a related search: no query is embedded."""
    origin = find_origin(store, request.workspace, place)
    narrowed = narrow(store, request.prefixes, request.files, None)
    allowed = narrowed.ids if narrowed is not None else None
    if allowed is None and request.prefixes:
        allowed, _ = store.chunk_table(request.prefixes)
    orders, similarity_of, used = related_orders(store, origin, allowed, CANDIDATES_PER_RANKER)
    # The signals read the origin's path and names: from a test, tests are not penalised.
    about = " ".join((origin.path, *origin.symbols))
    memory = resident.in_memory(store) if resident is not None else None
    hits, source_chars = _ranked_hits(
        store, request, orders, None, similarity_of, about, None, resident, memory
    )
    return hits, source_chars, origin, used


def _ranked_hits(
    store: Store,
    request: SearchRequest,
    orders: list[list[int]],
    weights: list[float] | None,
    similarity_of: dict[int, float],
    text: str,
    steps: SearchSteps | None,
    resident: ResidentIndex | None,
    memory: InMemoryIndex | None,
) -> tuple[list[Hit], int]:
    """Fuse `orders`, apply the signals for `text`, and cut the first `limit` excerpts."""
    fused = fuse_rrf(orders, weights, k=FUSION_K)
    rows: dict[int, ChunkRow] | None = None
    if resident is not None and memory is not None:  # rows are read for the hits alone, below
        batch = memory.places.batch(fused)
    else:
        ids = list(fused)
        rows = store.chunk_rows(ids) if resident is None else resident.chunk_rows(store, ids)
        batch = batch_of(
            [
                Candidate(
                    cid, row.path, row.start_line, row.end_line, row.symbols, score, row.prototypes
                )
                for cid, score in fused.items()
                if (row := rows.get(cid)) is not None
            ]
        )
    signals = request.signals
    copies: frozenset[str] = frozenset()
    if "penalty" in signals:
        copies = kept_while_unchanged(
            resident, store, "copies", lambda: copied_directories(store.file_paths())
        )
    settings = request.settings
    keep = max(request.limit, settings["rerank.candidates"] if settings["rerank.enabled"] else 0)
    ranked = drop_overlaps(signals_order(text, batch, signals, copies), keep)
    if rows is None and resident is not None:
        rows = resident.chunk_rows(store, [c.chunk_id for c in ranked])
        ranked = [c for c in ranked if c.chunk_id in rows]  # gone since: another writer
    if steps is not None:
        ranked = steps.reorder(text, ranked, rows)
    ranked = ranked[: request.limit]
    hits = []
    sizes: dict[str, int] = {}
    workspace_root = str(request.workspace)
    for rank, candidate in enumerate(ranked, start=1):
        row = rows[candidate.chunk_id]
        sizes[row.path] = row.size
        similarity = similarity_of.get(row.id)
        hits.append(
            cut_hit(rank, row, candidate.score, similarity, request.excerpt_lines, workspace_root)
        )
    return hits, sum(sizes.values())


def scope_notice(
    store: Store, focus: str, view: TierView, query: str, hits: list[Hit]
) -> list[str]:
    """Warn when the best match inside the focus is weak beside the rest of the index.

    With vectors: `scope_gap` over every chunk of the tier that ranks most of the index.
    Without (nothing embedded yet): only the plain case, no hit inside while the query's
    words occur outside.
    """
    if view.tiers:
        entry = max(view.tiers, key=lambda t: len(t.ids))
        try:
            sims = entry.similarities(query)
        except EmbedderError:
            sims = None
        if sims is not None:
            scope_ids, _ = store.chunk_table([focus])
            gap = scope_gap(sims, np.isin(entry.ids, scope_ids))
            if gap is not None:
                return [weak_notice(focus, gap)] if gap >= WEAK_GAP else []
    if not hits and store.lexical_matches(query_tokens(query)):
        return [unmatched_notice(focus)]
    return []
