"""The index job: refresh the whole workspace, then embed every pending chunk."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from wherein.config import Settings
from wherein.endpoint.rest import forget_rest
from wherein.errors import IndexBusy
from wherein.index.location import INDEX_FILE_NAME, index_dir
from wherein.index.owner import mark_used
from wherein.index.refresh import (
    Progress,
    RefreshReport,
    index_lock,
)
from wherein.index.store import open_store
from wherein.index_fill import fill_index
from wherein.packages.plan import build_package_indexes, package_overlay
from wherein.roots import configured_roots

__all__ = ["IndexSummary", "build_index"]


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
    forget_rest(settings)  # an index run asks the endpoint, whatever a search's miss said
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
        if store.refused is not None:  # opened read-only: the disk takes no write
            store.close()
            raise store.refused
        if store.notice:
            notices.append(store.notice)
        store.notice = None
        plan = configured_roots(workspace, settings, focus)
        plan = package_overlay(workspace, settings, plan)
        notices.extend(plan.problems)
        try:
            report, embedded, pending = fill_index(
                store, plan.roots, settings, notices, progress=progress, focus=focus
            )
        finally:
            store.close()
    return IndexSummary(report, embedded, time.monotonic() - started, tuple(notices), pending)
