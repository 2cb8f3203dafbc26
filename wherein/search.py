"""The search pipeline: warm a bounded slice of the index, rank, cut excerpts.

The CLI and the agent tool both call `run_search`; neither ranks on its own. This module
orchestrates: the request is checked once (`search_request`), the index warmed
(`warming`), ranked (`code_ranking`, through the `retrieval` core), and the model steps
awaited (`search_steps`); `_search_index` is the one place that searches one index store.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

from wherein.code_ranking import rank_chunks, rank_related, scope_notice
from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.embedding.registry import configured_model
from wherein.errors import VectorsDamaged
from wherein.file_filter import FileFilter
from wherein.hits import Hit, SearchResult
from wherein.index.location import INDEX_FILE_NAME
from wherein.index.owner import mark_used
from wherein.index.query_vectors import QueryVectors
from wherein.index.refresh import Progress, search_lock
from wherein.index.store import Store, open_store
from wherein.index.tiers import TIERS
from wherein.packages.federation import federate, release
from wherein.ranking.expansion import start_expansion
from wherein.ranking.signals import SIGNALS
from wherein.related import parse_place
from wherein.resident import ResidentIndex, kept_while_unchanged
from wherein.scope import Scope, resolve_scope
from wherein.search_models import SearchModels
from wherein.search_request import SearchRequest, build_request
from wherein.search_steps import SearchSteps, no_expansion
from wherein.storage.room import low_room
from wherein.text_match import EXACT, TextMatch
from wherein.tier_view import TierView, tier_coverage
from wherein.untrusted import echo
from wherein.warming import warm_index

__all__ = [
    "Hit",
    "Scope",
    "SearchRequest",
    "SearchResult",
    "resolve_scope",
    "run_related",
    "run_search",
]

# What reorders a related search: what kind of file each chunk is in (tests, docs, copies),
# and one file not taking every slot. Not the query's words (there are none), nor coherence,
# which lifts a file for holding several candidates: the origin's own file always does.
RELATED_SIGNALS = frozenset({"penalty", "diversity"})


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
    progress: Progress | None = None,
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
    `excerpt_lines` overrides `search.excerpt_lines` for this search. `progress` hears the
    refresh's reading of changed files (`wherein index`'s stages), for a terminal's bar.

    Raises:
        UsageError: an empty query, a bad limit, or a path outside the workspace.
        WorkspaceError, IndexError_: the workspace or its index cannot be used.
    """
    asked = bool(query.split())
    if not asked and match is not None:
        query = match.text
    request = build_request(
        query,
        workspace=workspace,
        settings=settings,
        signals=signals,
        limit=limit,
        path=path,
        focus=focus,
        cold_budget_s=cold_budget_s,
        excerpt_lines=excerpt_lines,
    )
    text = request.text
    exact_only = not asked and match is not None and match.kind == EXACT
    request = replace(
        request,
        rank_text=text if asked or exact_only else None,
        files=files,
        match=match,
        progress=progress,
    )
    models = SearchModels(settings, embedder, fast_embedder, tiers)
    # Started first so the model thinks while the index is refreshed; collected in _rank.
    # The model steps serve a question in words: a literal or a pattern alone is none.
    expansion = start_expansion(text, settings, cancel) if asked else no_expansion(text, settings)
    steps = SearchSteps(expansion, settings, cancel, rerank=asked)
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
    request = build_request(
        spot.text,
        workspace=workspace,
        settings=settings,
        signals=RELATED_SIGNALS,
        limit=limit,
        path=path,
        focus=focus,
        cold_budget_s=cold_budget_s,
        excerpt_lines=excerpt_lines,
    )
    request = replace(request, rank_text=None, files=files, related=spot)
    models = SearchModels(settings, None, fast_embedder, frozenset(TIERS))
    steps = SearchSteps(no_expansion(request.text, settings), settings, None, rerank=False)
    return _run(request, models, steps, resident)


def _run(
    request: SearchRequest,
    models: SearchModels,
    steps: SearchSteps,
    resident: ResidentIndex | None,
) -> SearchResult:
    """The search on the workspace's index, opened checked again if a read finds it damaged."""
    held = resident.lock if resident is not None else contextlib.nullcontext()
    with held:
        try:
            return _ranked(request, models, steps, resident, verify=False)
        except sqlite3.DatabaseError:
            # A search skips the whole-file integrity scan; a read that fails says the file
            # is damaged, so open it again as `wherein index` does: checked, moved aside if bad.
            if resident is not None:
                resident.drop_store()
            return _ranked(request, models, steps, resident, verify=True)


def _ranked(
    request: SearchRequest,
    models: SearchModels,
    steps: SearchSteps,
    resident: ResidentIndex | None,
    verify: bool,
) -> SearchResult:
    """The search, without the vectors of a tier that prove damaged when summed.

    The first time, they are a vector cache whose bytes changed after it was written (its
    header and size hold): it is moved aside, and the search runs again on the index's own
    vectors. The same tier damaged again is in the index itself: the search ranks without
    that tier, and `wherein index` (`repair_vector_caches`) embeds those chunks again.
    """
    discarded: set[str] = set()
    while True:
        try:
            return _search_index(request, models, steps, resident, verify=verify)
        except VectorsDamaged as err:
            if err.tier not in discarded:
                discarded.add(err.tier)
                said = _discard_vector_cache(request, resident, err.tier)
            else:
                models.tiers = models.tiers - {err.tier}
                said = [err.ranked_without()]
            request = replace(request, warnings=(*request.warnings, *said))


def _discard_vector_cache(
    request: SearchRequest, resident: ResidentIndex | None, tier: str
) -> list[str]:
    """Move the tier's cache aside and forget all that was read from it; what was done."""
    path = request.index_directory / INDEX_FILE_NAME
    store = resident.store(path, False) if resident is not None else open_store(path)
    try:
        said = store.discard_vector_cache(TIERS[tier])
        store.notice = None  # said in the search's warnings, not again by the next one
        return said
    finally:
        if resident is not None:
            resident.drop_store()
        else:
            store.close()


def _filtered_out(files: FileFilter) -> str:
    """Why a filtered search answers nothing: every ranker ranks what passes the filter, so
    an empty answer means no indexed file does (a pattern that matches none, say)."""
    named = [
        *(f"--lang {language}" for language in sorted(files.languages)),
        *(f"--glob {echo(pattern)}" for pattern in files.globs),
        *(f"--exclude {echo(pattern)}" for pattern in files.excludes),
    ]
    return f"No indexed file passes {' '.join(named)}: check the patterns against the paths."


def _search_index(
    request: SearchRequest,
    models: SearchModels,
    steps: SearchSteps,
    resident: ResidentIndex | None,
    verify: bool,
) -> SearchResult:
    """Search the one index store of `request.workspace`: warm it, rank it, say what happened."""
    warnings = list(request.warnings)
    directory = request.index_directory
    path = directory / INDEX_FILE_NAME
    searching = resident.searching() if resident is not None else contextlib.nullcontext()
    lock = search_lock(directory, request.budget, warnings)
    with searching, lock as locked:
        mark_used(directory, request.workspace)
        store = resident.store(path, verify) if resident else open_store(path, verify=verify)
        # A fresh search keeps its query vectors beside the index; a resident one, in memory.
        saved = QueryVectors(directory) if resident is None else None
        ranked = store  # with package indexes named: all of them, read as one
        try:
            if store.notice:
                warnings.append(store.notice)
                store.notice = None  # said once; warm_index reports only what happens next
            # The index state is read once (`state_kept`): again only after `warm_index`
            # writes (a refresh, vectors filled); nothing after it writes.
            kept = resident.state_kept() if resident is not None else contextlib.nullcontext()
            with kept:
                warm_index(store, request, locked, models, warnings, resident)
                origin = None
                if request.related is not None:  # stored vectors only: no model need load
                    hits, source_chars, origin, used = rank_related(
                        store, request, request.related, resident
                    )
                else:
                    ranked = federate(store, request.packages, warnings)
                    view = _view(ranked, models, warnings, resident, saved, request.rank_text or "")
                    if store.notice:  # what refreshing or reading the vector caches had to mend
                        warnings.append(store.notice)
                        store.notice = None
                    hits, source_chars = rank_chunks(
                        ranked, request, view, warnings, steps, resident
                    )
                    # With an exact or regex match, the match may be what found nothing.
                    filtered = request.files is not None and request.files.active
                    if not hits and filtered and request.match is None:
                        warnings.append(_filtered_out(request.files))
                    if request.scope.focus and request.rank_text is not None:
                        warnings.extend(
                            scope_notice(ranked, request.scope.focus, view, request.rank_text, hits)
                        )
                    used = {entry.tier.name for entry in view.tiers}
                if store.notice:
                    warnings.append(store.notice)
                    store.notice = None
                pending_files, pending_chunks, coverage = kept_while_unchanged(
                    resident,
                    ranked,
                    f"coverage:{','.join(sorted(used))}",
                    lambda: tier_coverage(ranked, request.settings, used),
                )
                failure = (
                    store.embed_failure(configured_model(request.settings))
                    if pending_chunks
                    else None
                )
                if failure:
                    warnings.append(
                        f"The last 'wherein index' could not embed with the configured model: "
                        f"{failure}"
                    )
                room = low_room(request.index_directory, pending_chunks)
                if room:  # a run stopped by a full disk could not keep its reason
                    warnings.append(room)
        finally:
            release(ranked)
            if resident is None:
                store.close()
            else:
                resident.build_wanted()  # after the answer: the build holds the GIL a while
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
    models: SearchModels,
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
    version = f"{resident.state(store)}|{keys}|{resident.copies_made}"
    return resident.cached(
        "view",
        version,
        lambda: TierView(
            store,
            embedders,
            vectors_of=lambda tier: resident.vectors(store, tier),
            quantized_of=resident.quantized_rows,
        ),
    )
