"""Before a search ranks: bring the lexical index and the fast vector tier up to date.

Within the request's budget; a full disk or a busy index costs the answer nothing (it
ranks what the index already holds, and says so).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from wherein.embedding.registry import create_embedder, fast_tier_identity, in_process_identity
from wherein.errors import EmbedderError, IndexUnwritable
from wherein.index.change_check import TreeStamp
from wherein.index.refresh import embed_pending, refresh_when_changed, walk_key
from wherein.index.store import Store
from wherein.index.tiers import FAST, FULL
from wherein.index_fill import FAST_EMBED_BATCH
from wherein.resident import ResidentIndex
from wherein.search_models import SearchModels
from wherein.search_request import SearchRequest

__all__ = ["warm_index"]


def warm_index(
    store: Store,
    request: SearchRequest,
    locked: bool,
    models: SearchModels,
    warnings: list[str],
    resident: ResidentIndex | None,
) -> None:
    """Bring the lexical index and the fast tier up to date within the budget.

    The budget bounds reading changed files, then embedding; a budget of 0 reads every
    changed file (a search must find what is on disk) and embeds nothing.
    """
    deadline = time.monotonic() + request.budget if request.budget > 0 else None
    if store.read_only:
        return  # opened so because nothing can be written (a full disk); its notice says so
    settings = request.settings
    max_file_bytes = settings["walk.max_file_bytes"]
    key = walk_key(request.plan.roots, max_file_bytes)
    if not locked:
        if resident is not None:
            resident.forget_walk()  # the other process may change what the next walk finds
        warnings.append(
            "The index is being updated (by `wherein index`, or a session's index job); "
            "results may miss recent changes."
        )
        return
    if resident is not None and resident.tree_unchanged(key):
        _say_stamp_unreadable(resident.last_walk(), warnings)  # said by the walk that stamped it
        if resident.fast_complete_at == resident.state(store):
            return  # nothing on disk changed and every chunk has its fast vector
    else:
        try:
            report, stamp = refresh_when_changed(
                store,
                request.plan.roots,
                max_file_bytes=max_file_bytes,
                fast_tier=models.fast_tier(warnings),
                deadline=deadline,
                progress=request.progress,
            )
        except IndexUnwritable as err:
            # A full disk must not cost the answer: rank what the index already holds.
            warnings.append(f"{err} Searched the index as it was.")
            return
        finally:
            _written(resident)
        if report is None:  # nothing changed: the stamp names what its walk could not read
            _say_stamp_unreadable(stamp, warnings)
        else:
            warnings.extend(report.notices)
            if report.files_left:
                warnings.append(
                    f"{report.files_left:,} changed files were left unread when the search's "
                    f"budget (search.cold_budget_s = {request.budget:g} s) ran out: they are "
                    "searched as the index held them (new ones not yet). The next search, "
                    "or 'wherein index', reads them."
                )
            _say_unreadable(report.unreadable, len(report.unreadable), warnings)
        if resident is not None and report is not None and report.files_left:
            resident.forget_walk()  # no walk describes the tree: the next search walks
        elif resident is not None:
            resident.remember_walk(key, stamp)
            notice = resident.take_watch_notice()
            if notice is not None:
                warnings.append(notice)
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
            budget_s=0.0 if deadline is None else max(0.0, deadline - time.monotonic()),
            paths_first=request.prefixes,
            tier=tier,
            batch=FAST_EMBED_BATCH,
        )
    except EmbedderError as err:
        warnings.append(f"{err} Ranked without the {tier.name} tier's vectors.")
    except IndexUnwritable as err:
        warnings.append(f"{err} Vectors not yet stored were left pending.")
    finally:
        _written(resident)
    if store.notice:
        warnings.append(store.notice)
        store.notice = None
    if resident is not None and not store.has_pending(tier):
        resident.fast_complete_at = resident.state(store)


def _written(resident: ResidentIndex | None) -> None:
    """What a refresh or fill may have written is read again by the rest of the search."""
    if resident is not None:
        resident.forget_states()


# Unreadable entries a search's warning names; `wherein index` lists more.
UNREADABLE_NAMED = 3


def _say_stamp_unreadable(stamp: TreeStamp | None, warnings: list[str]) -> None:
    if stamp is not None:
        _say_unreadable(stamp.unreadable, stamp.unreadable_count, warnings)


def _say_unreadable(unreadable: Sequence[str], count: int, warnings: list[str]) -> None:
    """What the last walk could not read (`count` in all, some named), said by each search
    the index lacks it for: `Unreadable, skipped: a.py (Permission denied); locked/ (...);
    and 2 more.`"""
    if not count:
        return
    named = "; ".join(unreadable[:UNREADABLE_NAMED])
    rest = count - min(UNREADABLE_NAMED, len(unreadable))
    more = f"; and {rest} more (`wherein index` lists them)" if rest > 0 else ""
    warnings.append(f"Unreadable, skipped: {named}{more}.")
