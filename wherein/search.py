"""The search pipeline: warm a bounded slice of the index, rank, cut excerpts.

The CLI and the agent tool both call `run_search`; neither ranks on its own.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from wherein.config import Settings
from wherein.embedding.base import Embedder, EmbedderIdentity
from wherein.embedding.registry import (
    DeferredEmbedder,
    FastTierModel,
    check_endpoint,
    create_embedder,
    fast_tier_identity,
    fast_tier_model,
    in_process_identity,
    in_process_model,
)
from wherein.errors import EmbedderError, IndexUnwritable, UsageError
from wherein.file_filter import FileFilter
from wherein.hits import Hit, SearchResult, cut_hit, drop_overlaps
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.owner import mark_used
from wherein.index.query_vectors import QueryVectors
from wherein.index.refresh import embed_pending, index_lock, refresh_when_changed, walk_key
from wherein.index.store import Store, open_store
from wherein.index.tiers import FAST, FULL, TIERS
from wherein.indexing import FAST_EMBED_BATCH
from wherein.narrowing import Narrowed, lexical_within, narrow
from wherein.ranking.expansion import Expansion, start_expansion
from wherein.ranking.rerank import rerank
from wherein.ranking.signals import SIGNALS, Candidate, apply_signals, copied_directories
from wherein.ranking.step import OFF, StepStatus, start_step
from wherein.ranking.tokens import query_tokens
from wherein.related import Origin, Place, find_origin, parse_place, related_orders
from wherein.resident import ResidentIndex
from wherein.retrieval.fusion import fuse_rrf
from wherein.roots import RootPlan, plan_roots
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
from wherein.text_match import EXACT, TextMatch
from wherein.tier_view import TierCoverage, TierView

__all__ = ["Hit", "Scope", "SearchResult", "resolve_scope", "run_related", "run_search"]

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 200
# Each ranker contributes this many candidates to the fusion.
CANDIDATES_PER_RANKER = 100
# The orders of the model's phrasings count half as much as the query's own: a phrasing is a
# guess at what the user meant, and the original must not be outvoted by one (expansion).
PHRASING_WEIGHT = 0.5
# What reorders a related search: what kind of file each chunk is in (tests, docs, copies),
# and one file not taking every slot. Not the query's words (there are none), nor coherence,
# which lifts a file for holding several candidates: the origin's own file always does.
RELATED_SIGNALS = frozenset({"penalty", "diversity"})


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


@dataclass(frozen=True)
class _Request:
    """One search, resolved: what to rank, where, and with which budget."""

    text: str
    limit: int
    workspace: Path
    settings: Settings
    scope: Scope
    prefixes: list[str]
    plan: RootPlan
    budget: float
    signals: frozenset[str]
    warnings: tuple[str, ...]
    excerpt_lines: int
    # The words BM25, the vectors and the signals rank by; None: by the text match alone.
    rank_text: str | None
    files: FileFilter | None = None
    match: TextMatch | None = None
    related: Place | None = None


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
    fast_embedder: Embedder | None = None,
    signals: frozenset[str] = SIGNALS,
    tiers: frozenset[str] = frozenset(TIERS),
    cancel: threading.Event | None = None,
    resident: ResidentIndex | None = None,
    files: FileFilter | None = None,
    match: TextMatch | None = None,
    excerpt_lines: int | None = None,
) -> SearchResult:
    """Answer one query over the workspace, bringing the fast tiers up to date first.

    The lexical index and the fast vector tier are refreshed within `cold_budget_s`; the
    configured model's vectors are never computed here (unless that model is the fast one):
    `wherein index` or a `wherein serve` session fills them, and until then the fast tier
    ranks the chunks they lack.

    `embedder` and `fast_embedder` are warm models a long-lived caller keeps; without them
    each is loaded only if the index holds vectors it must rank.

    `tiers` names the vector tiers that may rank (the benchmark measures each alone);
    the lexical index always does.

    `resident` is the state a long-lived caller keeps for this workspace: with it the open
    index, each tier's matrix and query vectors persist between searches, and a `stat` of
    the paths the last walk saw replaces the walk while nothing on disk changed.

    `cancel` stops the optional model steps (expansion, rerank) at once: none starts after
    it is set, and the search returns what the index alone ranks, saying so in their status.

    `files` keeps the files it allows, and `match` (exact or regex mode) the chunks whose text
    holds it: both narrow what every ranker sees, before the limit. With a match the query
    may be empty: an exact literal then ranks as the query, a pattern by how often it matches.
    `excerpt_lines` overrides `search.excerpt_lines` for this search.

    Raises:
        UsageError: an empty query, a bad limit, or a path outside the workspace.
        WorkspaceError, IndexError_: the workspace or its index cannot be used.
    """
    asked = bool(query.split())
    if not asked and match is not None:
        query = match.text
    request = _request(
        query, workspace, settings, limit, path, focus, cold_budget_s, signals, excerpt_lines
    )
    text = request.text
    exact_only = not asked and match is not None and match.kind == EXACT
    request = replace(
        request, rank_text=text if asked or exact_only else None, files=files, match=match
    )
    models = _Models(settings, embedder, fast_embedder, tiers)
    # Started first so the model thinks while the index is refreshed; collected in _rank.
    # The model steps serve a question in words: a literal or a pattern alone is none.
    expansion = start_expansion(text, settings, cancel) if asked else _no_expansion(text, settings)
    steps = _Steps(expansion, settings, cancel, rerank=asked)
    return _run(request, models, steps, resident)


def run_related(
    place: str,
    *,
    workspace: Path,
    settings: Settings,
    limit: int | None = None,
    path: str | None = None,
    focus: str | None = None,
    files: FileFilter | None = None,
    excerpt_lines: int | None = None,
    fast_embedder: Embedder | None = None,
    resident: ResidentIndex | None = None,
    cold_budget_s: float | None = None,
) -> SearchResult:
    """The chunks most like the one at `place` (`FILE[:LINE]`), ranked by its stored vectors.

    The index is brought up to date first, as for a search, but no model embeds a query. The
    result is a search result whose `query` is `place` and whose `origin` is what was compared.

    Raises:
        UsageError: a bad place (not indexed, no such line), limit, path or filter.
        IndexError_: the origin has no vector yet.
        WorkspaceError: the workspace cannot be used.
    """
    spot = parse_place(place)
    request = _request(
        spot.text,
        workspace,
        settings,
        limit,
        path,
        focus,
        cold_budget_s,
        RELATED_SIGNALS,
        excerpt_lines,
    )
    request = replace(request, rank_text=None, files=files, related=spot)
    models = _Models(settings, None, fast_embedder, frozenset(TIERS))
    steps = _Steps(_no_expansion(request.text, settings), settings, None, rerank=False)
    return _run(request, models, steps, resident)


def _request(
    query: str,
    workspace: Path,
    settings: Settings,
    limit: int | None,
    path: str | None,
    focus: str | None,
    cold_budget_s: float | None,
    signals: frozenset[str],
    excerpt_lines: int | None,
) -> _Request:
    """One search's checked request, ranking `query` as written (the callers set the mode)."""
    limit = settings["search.limit"] if limit is None else limit
    text, warnings = _validate(query, limit)
    plan = plan_roots(workspace, settings["scope.source_roots"])
    scope = resolve_scope(workspace, focus, settings, roots=plan.extra)
    under = relative_folder(workspace, path, "--path", plan.extra) if path else None
    if scope.focus:  # a root whose label is the focus's first folder in the workspace is dropped
        plan = plan_roots(workspace, settings["scope.source_roots"], scope.focus)
    return _Request(
        text=text,
        limit=limit,
        workspace=workspace,
        settings=settings,
        scope=scope,
        prefixes=narrowest_prefix(scope.focus, under),
        plan=plan,
        budget=settings["search.cold_budget_s"] if cold_budget_s is None else cold_budget_s,
        signals=signals,
        warnings=(*warnings, *plan.problems),
        excerpt_lines=settings["search.excerpt_lines"] if excerpt_lines is None else excerpt_lines,
        rank_text=text,
    )


def _no_expansion(text: str, settings: Settings) -> Expansion:
    """An expansion that is off: a search with no question in words has nothing to rephrase."""
    timeout = settings["expansion.timeout_s"]
    off = start_step("expansion", None, timeout_s=timeout, timeout_key="expansion.timeout_s")
    return Expansion(text, off)


def _run(
    request: _Request, models: _Models, steps: _Steps, resident: ResidentIndex | None
) -> SearchResult:
    held = resident.lock if resident is not None else contextlib.nullcontext()
    with held:
        try:
            return _search_index(request, models, steps, resident, verify=False)
        except sqlite3.DatabaseError:
            # A search skips the whole-file integrity scan; a read that fails says the file
            # is damaged, so open it again as `wherein index` does: checked, moved aside if bad.
            if resident is not None:
                resident.drop_store()
            return _search_index(request, models, steps, resident, verify=True)


def _search_index(
    request: _Request,
    models: _Models,
    steps: _Steps,
    resident: ResidentIndex | None,
    verify: bool,
) -> SearchResult:
    warnings = list(request.warnings)
    directory = index_dir(request.workspace)
    path = directory / INDEX_FILE_NAME
    with index_lock(directory, wait=False, notices=warnings) as locked:
        mark_used(directory, request.workspace)
        store = resident.store(path, verify) if resident else open_store(path, verify=verify)
        # A fresh search keeps its query vectors beside the index; a resident one, in memory.
        saved = QueryVectors(directory) if resident is None else None
        try:
            if store.notice:
                warnings.append(store.notice)
                store.notice = None  # said once; _warm reports only what happens next
            _warm(store, request, locked, models, warnings, resident)
            origin = None
            if request.related is not None:  # stored vectors only: no model need load
                hits, source_chars, origin, used = _rank_related(
                    store, request, request.related, resident
                )
            else:
                view = _view(store, models, warnings, resident, saved, request.rank_text or "")
                if store.notice:  # what refreshing or reading the vector caches had to mend
                    warnings.append(store.notice)
                    store.notice = None
                hits, source_chars = _rank(store, request, view, warnings, steps, resident)
                if request.scope.focus and request.rank_text is not None:
                    warnings.extend(
                        _scope_notice(store, request.scope.focus, view, request.rank_text, hits)
                    )
                used = {entry.tier.name for entry in view.tiers}
            if store.notice:
                warnings.append(store.notice)
                store.notice = None
            pending_files, pending_chunks, coverage = _cached(
                resident,
                store,
                f"coverage:{','.join(sorted(used))}",
                lambda: _coverage(store, request.settings, used),
            )
        finally:
            if resident is None:
                store.close()
            if saved is not None:
                saved.close()
    returned = sum(len(hit.excerpt) for hit in hits)
    return SearchResult(
        request.text,
        str(request.workspace),
        request.scope,
        hits,
        pending_files,
        pending_chunks,
        warnings,
        returned,
        source_chars,
        *steps.statuses(),
        tiers=coverage,
        origin=origin,
    )


def _view(
    store: Store,
    models: _Models,
    warnings: list[str],
    resident: ResidentIndex | None,
    saved: QueryVectors | None,
    text: str,
) -> TierView:
    """The vector tiers a search ranks by, with their models (kept by a resident caller).

    A fresh search passes the query vectors `saved` beside the index: a model whose vector for
    `text` is there is not loaded.
    """
    embedders = models.for_ranking(store, warnings, resident, saved, text)
    if resident is None:
        return TierView(store, embedders, saved)
    keys = ",".join(f"{k}={e.identity.key() if e else None}" for k, e in embedders.items())
    version = f"{resident.state(store)}|{keys}"
    return resident.cached("view", version, lambda: TierView(store, embedders))


class _Models:
    """The embedders of one search: given by a warm caller, or loaded when first needed."""

    def __init__(
        self,
        settings: Settings,
        full: Embedder | None,
        fast: Embedder | None,
        tiers: frozenset[str],
    ) -> None:
        if full is None:
            check_endpoint(settings)
        self.settings = settings
        self.tiers = tiers
        self.full = full
        self._given_fast = fast
        self._fast: FastTierModel | None = None

    def fast_tier(self, warnings: list[str]) -> FastTierModel:
        """The fast tier's model for this search, loaded when first called."""
        if self._fast is None:
            self._fast = FastTierModel(self.settings, warnings, self._given_fast)
        return self._fast

    def for_ranking(
        self,
        store: Store,
        warnings: list[str],
        resident: ResidentIndex | None = None,
        saved: QueryVectors | None = None,
        text: str = "",
    ) -> dict[str, Embedder | None]:
        """The models whose vectors the index holds; the full model loads only then.

        A model whose vector for `text` is `saved` beside the index is deferred: it loads
        only if some other text must be embedded (a phrasing of the query).
        """
        models: dict[str, Embedder | None] = {}
        wanted = self.tiers
        has_full = store.get_meta(FULL.meta_key) and _cached(
            resident, store, "has_full", lambda: store.has_vectors(FULL)
        )
        if FULL.name in wanted and has_full:
            if self.full is None:
                kept = _kept(saved, in_process_model(self.settings), text)
                if kept is not None:
                    self.full = DeferredEmbedder(kept, lambda: create_embedder(self.settings))
                else:
                    try:
                        self.full = create_embedder(self.settings)
                    except EmbedderError as err:
                        warnings.append(f"{err} Ranked without the configured model's vectors.")
            models[FULL.name] = self.full
        if FAST.name in wanted and store.get_meta(FAST.meta_key) is not None:
            # The fast tier ranks only what the full tier lacks: with the full tier complete
            # and its model loaded, the fast model need not load at all.
            full_complete = models.get(FULL.name) is not None and not _cached(
                resident, store, "full_pending", lambda: store.has_pending(FULL)
            )
            if not full_complete:
                fast = self.fast_tier(warnings)
                kept = _kept(saved, fast_tier_model(self.settings), text)
                models[FAST.name] = fast() if kept is None else DeferredEmbedder(kept, fast)
        return models


def _kept(
    saved: QueryVectors | None, identity: EmbedderIdentity | None, text: str
) -> EmbedderIdentity | None:
    """`identity`, when `saved` holds its model's vector for `text` (so the model may wait)."""
    if saved is None or identity is None or saved.get(identity, text) is None:
        return None
    return identity


def _cached(resident: ResidentIndex | None, store: Store, name: str, build):
    """`build()`, or for a resident caller its value kept while the index state is the same."""
    if resident is None:
        return build()
    return resident.cached(name, resident.state(store), build)


def _chunk_count(store: Store, resident: ResidentIndex | None) -> int:
    return _cached(resident, store, "chunks", store.chunk_count)


def _coverage(store: Store, settings: Settings, used: set[str]):
    """(pending files, pending chunks) of the configured model, and each tier's coverage."""
    pending_files, pending_chunks = store.pending_count()
    chunks = store.chunk_count()
    coverage = {}
    fast_model = fast_tier_identity(settings)
    for tier, model in ((FULL, store.get_meta(FULL.meta_key)), (FAST, fast_model)):
        if tier is FAST and fast_model is None:
            continue
        pending = pending_chunks if tier is FULL else store.pending_count(tier)[1]
        coverage[tier.name] = TierCoverage(
            model=model,
            chunks=chunks - pending,
            pending=pending,
            used=tier.name in used,
        )
    return pending_files, pending_chunks, coverage


class _Steps:
    """The optional model steps of one search, and what became of each."""

    def __init__(
        self, expansion: Expansion, settings: Settings, cancel, rerank: bool = True
    ) -> None:
        self._expansion = expansion
        self._settings = settings
        self._cancel = cancel
        self._rerank = rerank  # a search with no question in words has nothing to rerank by
        self.expansion: StepStatus | None = None
        self.rerank = StepStatus(OFF)

    def phrasings(self) -> list[str]:
        """The model's phrasings of the query (the original is ranked already), or []."""
        queries, self.expansion = self._expansion.wait()
        return queries[1:]

    def reorder(self, query: str, ranked: list[Candidate], rows) -> list[Candidate]:
        if not self._rerank:
            return ranked
        window = ranked[: self._settings["rerank.candidates"]]
        passages = [
            f"{rows[c.chunk_id].path}:{c.start_line}-{c.end_line}\n{rows[c.chunk_id].text}"
            for c in window
        ]
        ranked, self.rerank = rerank(query, ranked, passages, self._settings, self._cancel)
        return ranked

    def statuses(self) -> tuple[StepStatus, StepStatus]:
        expansion = self.expansion
        if expansion is None:  # the index had nothing to rank, so its answer was not awaited
            pending = self._expansion.pending
            if pending.started:
                expansion = StepStatus(OFF, "the index had nothing to rank")
            else:
                expansion = pending.wait()[1]
        return expansion, self.rerank


def _scope_notice(store: Store, focus: str, view: TierView, query: str, hits: list[Hit]):
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


def _warm(
    store: Store,
    request: _Request,
    locked: bool,
    models: _Models,
    warnings: list[str],
    resident: ResidentIndex | None,
) -> None:
    """Bring the lexical index and the fast tier up to date within the budget."""
    settings = request.settings
    max_file_bytes = settings["walk.max_file_bytes"]
    key = walk_key(request.plan.roots, max_file_bytes)
    if not locked:
        if resident is not None:
            resident.forget_walk()  # the other process may change what the next walk finds
        warnings.append(
            "Another wherein process is updating this index; results may miss recent changes."
        )
        return
    if resident is not None and resident.tree_unchanged(key):
        if resident.fast_complete_at == resident.state(store):
            return  # nothing on disk changed and every chunk has its fast vector
    else:
        try:
            report, stamp = refresh_when_changed(
                store,
                request.plan.roots,
                max_file_bytes=max_file_bytes,
                fast_tier=models.fast_tier(warnings),
            )
        except IndexUnwritable as err:
            # A full disk must not cost the answer: rank what the index already holds.
            warnings.append(f"{err} Searched the index as it was.")
            return
        if report is not None:
            warnings.extend(report.notices)
            if report.unreadable:
                warnings.append(f"{len(report.unreadable)} unreadable file(s) skipped.")
        if resident is not None:
            resident.remember_walk(key, stamp)
    # The tier a search fills: the fast one, or the configured model when it is the fast one.
    fast_identity = fast_tier_identity(settings)
    tier = FAST if fast_identity is not None else FULL
    identity = fast_identity or in_process_identity(settings)
    if store.tier_complete(tier, identity):
        if resident is not None:
            resident.fast_complete_at = resident.state(store)
        return  # complete: the model need not even load
    if tier is FAST:
        embedder = models.fast_tier(warnings)()
    else:
        embedder = models.full
        if embedder is None:
            try:
                embedder = models.full = create_embedder(settings)
            except EmbedderError as err:
                warnings.append(f"{err} Ranked by keywords only.")
                return
    if embedder is None:
        return
    try:
        embed_pending(
            store,
            embedder,
            budget_s=request.budget,
            paths_first=request.prefixes,
            tier=tier,
            batch=FAST_EMBED_BATCH,
        )
    except EmbedderError as err:
        warnings.append(f"{err} Ranked without the {tier.name} tier's vectors.")
    except IndexUnwritable as err:
        warnings.append(f"{err} Vectors not yet stored were left pending.")
    if store.notice:
        warnings.append(store.notice)
        store.notice = None
    if resident is not None and not store.has_pending(tier):
        resident.fast_complete_at = resident.state(store)


def _rank(
    store: Store,
    request: _Request,
    view: TierView,
    warnings: list[str],
    steps: _Steps | None,
    resident: ResidentIndex | None = None,
):
    prefixes, text = request.prefixes, request.rank_text
    narrowed = narrow(store, prefixes, request.files, request.match)
    if narrowed is not None:
        if len(narrowed.ids) == 0:
            return [], 0
        view = view.in_scope(narrowed.ids)
    elif prefixes:
        ids, _ = store.chunk_table(prefixes)
        if len(ids) == 0:
            return [], 0
        view = view.in_scope(ids)
    elif not _chunk_count(store, resident):
        return [], 0
    orders = []
    similarity_of: dict[int, float] = {}
    if text is not None:
        orders.append(_lexical_order(store, text, prefixes, narrowed))
        for order, sims in view.orders(text, CANDIDATES_PER_RANKER, warnings):
            orders.append(order)
            for cid, value in sims.items():
                similarity_of.setdefault(cid, value)
    if narrowed is not None and narrowed.counts:  # exact or regex: the most matches first
        orders.append(narrowed.match_order(CANDIDATES_PER_RANKER))
    weights = None
    phrasings = steps.phrasings() if steps is not None else []
    if phrasings:  # after the query's own orders, each phrasing's lexical then vector orders
        more = []
        for phrasing in phrasings:
            more.append(_lexical_order(store, phrasing, prefixes, narrowed))
            more += [order for order, _ in view.orders(phrasing, CANDIDATES_PER_RANKER, None)]
        weights = [1.0] * len(orders) + [PHRASING_WEIGHT] * len(more)
        orders += more
    signal_text = request.text if text is None else text
    return _ranked_hits(
        store, request, orders, weights, similarity_of, signal_text, steps, resident
    )


def _rank_related(
    store: Store, request: _Request, place: Place, resident: ResidentIndex | None
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
    hits, source_chars = _ranked_hits(
        store, request, orders, None, similarity_of, about, None, resident
    )
    return hits, source_chars, origin, used


def _ranked_hits(
    store: Store,
    request: _Request,
    orders: list[list[int]],
    weights: list[float] | None,
    similarity_of: dict[int, float],
    text: str,
    steps: _Steps | None,
    resident: ResidentIndex | None,
):
    """Fuse `orders`, apply the signals for `text`, and cut the first `limit` excerpts."""
    fused = fuse_rrf(orders, weights)
    ids = list(fused)
    rows = store.chunk_rows(ids) if resident is None else resident.chunk_rows(store, ids)
    candidates = []
    for cid, score in fused.items():
        row = rows.get(cid)
        if row is not None:
            candidates.append(
                Candidate(cid, row.path, row.start_line, row.end_line, row.symbols, score)
            )
    signals = request.signals
    copies = frozenset()
    if "penalty" in signals:
        copies = _cached(resident, store, "copies", lambda: copied_directories(store.file_paths()))
    settings = request.settings
    keep = max(request.limit, settings["rerank.candidates"] if settings["rerank.enabled"] else 0)
    ranked = drop_overlaps(apply_signals(text, candidates, signals, copies), keep)
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


def _lexical_order(
    store: Store, query: str, prefixes: list[str], narrowed: Narrowed | None = None
) -> list[int]:
    """Chunk ids holding a query term, by BM25 score, best first."""
    terms = query_tokens(query)
    if narrowed is not None:
        found = lexical_within(store, terms, CANDIDATES_PER_RANKER, narrowed.ids)
    else:
        found = store.lexical_order(terms, CANDIDATES_PER_RANKER, prefixes)
    return [cid for cid, _ in found]
