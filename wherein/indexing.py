"""The index job: refresh the whole workspace, then embed every pending chunk."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wherein.config import Settings
from wherein.embedding.registry import (
    FastTierModel,
    create_embedder,
    fast_tier_identity,
    in_process_identity,
)
from wherein.errors import EndpointUnreachable, IndexBusy
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.owner import mark_used
from wherein.index.refresh import (
    Progress,
    RefreshReport,
    embed_pending,
    index_lock,
    refresh_index,
    remember_stamp,
)
from wherein.index.store import Store, open_store
from wherein.index.tiers import FAST
from wherein.packages.plan import build_package_indexes, package_overlay
from wherein.roots import plan_roots
from wherein.workspace import Root

__all__ = ["IndexSummary", "build_index"]

# The static model embeds a batch of 256 in tens of milliseconds: larger batches than the
# default model's keep the per-transaction cost small beside the work.
FAST_EMBED_BATCH = 256


@dataclass(frozen=True)
class IndexSummary:
    """The one summary line of `wherein index`, as data."""

    report: RefreshReport
    chunks_embedded: int
    seconds: float
    notices: tuple[str, ...]
    pending_chunks: int = 0  # left without a vector because the endpoint did not answer

    def line(self) -> str:
        r = self.report
        text = (
            f"{r.files_seen} files seen, {r.files_changed} changed, {r.files_deleted} removed, "
            f"{self.chunks_embedded} chunks embedded in {self.seconds:.1f} s"
        )
        skipped = {k: v for k, v in sorted(r.skipped.items()) if v}
        if skipped:
            text += " (skipped: " + ", ".join(f"{v} {k}" for k, v in skipped.items()) + ")"
        if r.unreadable:
            text += f"; {len(r.unreadable)} unreadable"
        if self.pending_chunks:
            text += f"; {self.pending_chunks} chunks pending: the embedding endpoint did not answer"
        return text


def build_index(
    workspace: Path,
    settings: Settings,
    *,
    wait: bool = True,
    progress: Progress | None = None,
    on_wait=None,
    focus: str | None = None,
) -> IndexSummary:
    """Refresh and fully embed the index of `workspace`.

    Args:
        focus: a folder relative to the workspace whose chunks are embedded first, so a
            focused search is warm before the rest of a large workspace is.
        wait: when another process holds the index, wait for it (True) or raise IndexBusy.
        on_wait: called once before waiting, so a caller can say why nothing moves.

    Raises:
        IndexBusy: `wait` is False and another process is writing the index.
        EmbedderError: the model could not load; the refreshed keyword index is kept.
            An endpoint that does not answer (EndpointUnreachable) is not raised: its chunks
            stay pending and the summary says how many.
    """
    started = time.monotonic()
    directory = index_dir(workspace)
    # The packages first: each shared index is built once, and the overlay compares with it.
    notices: list[str] = build_package_indexes(workspace, settings, progress)
    with index_lock(directory, wait=False, notices=notices) as locked:
        if not locked:
            if not wait:
                raise IndexBusy(
                    f"Another wherein process is updating the index of {workspace}. "
                    "Wait for it to finish."
                )
            if on_wait:
                on_wait()
    with index_lock(directory, wait=True, notices=notices):
        mark_used(directory, workspace)
        store = open_store(directory / INDEX_FILE_NAME, verify=True)
        if store.notice:
            notices.append(store.notice)
        store.notice = None
        plan = plan_roots(workspace, settings["scope.source_roots"], focus)
        plan = package_overlay(workspace, settings, plan)
        notices.extend(plan.problems)
        try:
            report, embedded, pending = fill_index(
                store, plan.roots, settings, notices, progress=progress, focus=focus
            )
        finally:
            store.close()
    return IndexSummary(report, embedded, time.monotonic() - started, tuple(notices), pending)


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
    embedded = 0

    def counted(stage: str, done: int, total: int) -> None:
        nonlocal embedded
        if stage == "embed":
            embedded = done
        if progress:
            progress(stage, done, total)

    pending = 0
    _fill_fast_tier(store, settings, fast_tier, progress)
    try:
        if not _nothing_to_embed(store, settings):
            embedder = create_embedder(settings)
            embedded = embed_pending(
                store,
                embedder,
                budget_s=None,
                progress=counted,
                paths_first=[focus] if focus else [],
            )
    except EndpointUnreachable as err:
        pending = store.pending_count()[1]
        left = (
            f"{pending} chunks stay pending; search ranks them by keywords until "
            "'wherein index' runs again."
            if pending
            else "No chunk was pending."
        )
        notices.append(f"{err} {left}")
    with store.transaction() as conn:
        store.drop_orphan_vectors(conn)
    store.repair_vector_caches()
    if store.notice:
        notices.append(store.notice)
        store.notice = None
    return report, embedded, pending


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
