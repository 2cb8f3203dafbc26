"""Filling one index store: refresh it from its roots, then give every chunk every tier.

A workspace's index (`wherein.indexing`) and a package's shared index
(`wherein.packages.shared`) are filled alike, so this sits below both.
"""

from __future__ import annotations

from collections.abc import Sequence

from wherein.config import Settings
from wherein.embedding.registry import (
    FastTierModel,
    configured_model,
    create_embedder,
    fast_tier_identity,
    in_process_identity,
)
from wherein.errors import EmbedderError, EndpointUnreachable
from wherein.index.refresh import (
    Progress,
    RefreshReport,
    embed_pending,
    refresh_index,
    remember_stamp,
)
from wherein.index.store import Store
from wherein.index.tiers import FAST
from wherein.workspace import Root

__all__ = ["FAST_EMBED_BATCH", "fill_index"]

# The static model embeds a batch of 256 in tens of milliseconds: larger batches than the
# default model's keep the per-transaction cost small beside the work.
FAST_EMBED_BATCH = 256


def fill_index(
    store: Store,
    roots: Sequence[Root],
    settings: Settings,
    notices: list[str],
    *,
    progress: Progress | None = None,
    focus: str | None = None,
) -> tuple[RefreshReport, int, int]:
    """Refresh `store` from `roots` and embed every pending chunk, in every tier; returns the
    report, the chunks the configured model embedded and those left pending (an endpoint
    that did not answer). The caller holds the index's lock. A workspace's index and a
    package's shared index (`wherein.packages.shared`) are filled alike.
    """
    fast_tier = FastTierModel(settings, notices)
    report = refresh_index(
        store,
        list(roots),
        max_file_bytes=settings["walk.max_file_bytes"],
        progress=progress,
        fast_tier=fast_tier,
    )
    remember_stamp(store, roots, settings["walk.max_file_bytes"], report)
    notices.extend(report.notices)
    embedded = pending = 0
    # A second pass only when the check below found vectors damaged in the index itself.
    for _pass in range(2):
        more, pending = _embed_every_tier(store, settings, fast_tier, notices, progress, focus)
        embedded += more
        with store.transaction() as conn:
            store.drop_orphan_vectors(conn)
        dropped = store.repair_vector_caches()
        if store.notice:
            notices.append(store.notice)
            store.notice = None
        if not dropped or pending:  # nothing to embed again, or the endpoint is not answering
            break
    return report, embedded, pending


def _embed_every_tier(
    store, settings: Settings, fast_tier, notices: list[str], progress, focus: str | None
) -> tuple[int, int]:
    """Embed every pending chunk in each tier: (chunks the configured model embedded, chunks
    left pending because its endpoint did not answer)."""
    embedded = 0

    def counted(stage: str, done: int, total: int) -> None:
        nonlocal embedded
        if stage == "embed":
            embedded = done
        if progress:
            progress(stage, done, total)

    _fill_fast_tier(store, settings, fast_tier, progress)
    try:
        if not _nothing_to_embed(store, settings):
            # A stage of its own: the default model's first start on a machine makes its
            # int8 graph (about 5 s), which would otherwise stall on the scan's full bar.
            if progress:
                progress("model", 0, 1)
            embedder = create_embedder(settings)
            if progress:
                progress("model", 1, 1)
            embedded = embed_pending(
                store,
                embedder,
                budget_s=None,
                progress=counted,
                paths_first=[focus] if focus else [],
            )
        store.note_embed_failure(None, configured_model(settings))  # embedded, or none left
    except EndpointUnreachable as err:
        pending = store.pending_count()[1]
        left = (
            f"{pending} chunks stay pending; search ranks them by keywords until "
            "'wherein index' runs again."
            if pending
            else "No chunk was pending."
        )
        notices.append(f"{err} {left}")
        return embedded, pending
    except EmbedderError as err:
        # For `status` and searches, until a run embeds.
        store.note_embed_failure(str(err), configured_model(settings))
        raise
    return embedded, 0


def _fill_fast_tier(store, settings: Settings, fast_tier, progress) -> None:
    """Give every chunk left without one its fast-tier vector (the refresh gave the changed
    chunks theirs): seconds, and searches rank by meaning while the configured model works
    through the rest."""
    identity = fast_tier_identity(settings)
    if identity is None:
        return
    if store.tier_complete(FAST, identity):
        return
    embedder = fast_tier()
    if embedder is not None:
        embed_pending(
            store, embedder, budget_s=None, tier=FAST, batch=FAST_EMBED_BATCH, progress=progress
        )


def _nothing_to_embed(store, settings: Settings) -> bool:
    """True when every chunk has a vector from the configured in-process model.

    Then a no-op `wherein index` need not load the model (about 0.4 s of its 1.5 s).
    """
    key = in_process_identity(settings)
    return key is not None and store.get_meta("embedder") == key and not store.pending_count()[1]
