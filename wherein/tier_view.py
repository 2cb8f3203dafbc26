"""What one search can rank by meaning: each vector tier with vectors, its model and matrix.

The fast tier covers every chunk soon after first contact; the full tier (the
configured model) fills in behind it. A search ranks the full tier's chunks by the
full model and the chunks it lacks by the fast model, so an index half-way
through its slow tier still ranks every chunk by meaning, and an index whose full
tier is complete ranks exactly as if there were one tier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.embedding.registry import fast_tier_identity
from wherein.errors import EmbedderError, VectorsDamaged
from wherein.index.query_vectors import QueryVectors
from wherein.index.store import Store
from wherein.index.tiers import FAST, FULL, VectorTier
from wherein.ranking.quantized_rows import QuantizedRows, best_rows
from wherein.ranking.vector import NotUnitRows, StackedRows, rows_where, similarities

__all__ = ["TierCoverage", "TierVectors", "TierView", "tier_coverage"]

# Distinct query texts whose vectors a tier keeps while its view lives (a resident server
# keeps the view across searches, and a session repeats itself often): 256 vectors of 384
# floats are 0.4 MB.
QUERY_VECTORS_KEPT = 256


@dataclass(frozen=True)
class TierCoverage:
    """How much of one tier an index holds, for the search's `tiers` block."""

    model: str | None
    chunks: int
    pending: int
    used: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "chunks": self.chunks,
            "pending": self.pending,
            "used": self.used,
        }


@dataclass
class TierVectors:
    """One usable tier: its embedder, and the chunk ids and unit rows it ranks."""

    tier: VectorTier
    embedder: Embedder
    ids: np.ndarray
    matrix: np.ndarray | StackedRows
    _query_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    saved: QueryVectors | None = None  # the vectors kept on disk, for a fresh search
    quantized: QuantizedRows | None = None  # a 4-bit copy of the rows, a resident search's

    def query_vector(self, text: str) -> np.ndarray:
        """The query's vector, computed once per search (ranking and scope check share it).

        Raises:
            EmbedderError: the model could not answer.
        """
        vector = self._query_vectors.get(text)
        if vector is None:
            identity = self.embedder.identity
            vector = self.saved.get(identity, text) if self.saved is not None else None
            if vector is None:
                vector = self.embedder.embed([text])[0]
                if self.saved is not None:
                    self.saved.put(identity, text, vector)
            if len(self._query_vectors) >= QUERY_VECTORS_KEPT:
                self._query_vectors.clear()
            self._query_vectors[text] = vector
        return vector

    def similarities(self, text: str) -> np.ndarray:
        return similarities(self.query_vector(text), self.matrix)

    def best(self, text: str, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, similarities) of the `n` rows most like `text`, best first.

        Raises:
            EmbedderError: the model could not answer.
            VectorsDamaged: a row summed is no unit vector (damaged since it was written).
        """
        try:
            return best_rows(self.query_vector(text), self.matrix, n, self.quantized)
        except NotUnitRows:
            raise VectorsDamaged(self.tier.name) from None


class TierView:
    """The tiers one search ranks by, read once from the store."""

    def __init__(
        self,
        store: Store,
        embedders: dict[str, Embedder | None],
        saved: QueryVectors | None = None,
        vectors_of: Callable[[VectorTier], tuple[np.ndarray, np.ndarray]] | None = None,
        quantized_of: Callable[[np.ndarray | StackedRows], QuantizedRows | None] | None = None,
    ) -> None:
        """`vectors_of(tier)` reads a tier's (ids, vectors): `store.vectors` unless given (a
        resident search's, which reads only what changed); `quantized_of(matrix)` is the
        4-bit copy a resident search holds of a matrix's rows, if any."""
        self.tiers: list[TierVectors] = []
        full_ids: np.ndarray | None = None
        for tier in (FULL, FAST):
            embedder = embedders.get(tier.name)
            if embedder is None or store.get_meta(tier.meta_key) != embedder.identity.key():
                continue
            ids, matrix = store.vectors(tier=tier) if vectors_of is None else vectors_of(tier)
            if tier is FAST and full_ids is not None and len(full_ids):
                # Only what the full tier lacks: once it is complete this tier adds nothing.
                keep = ~np.isin(ids, full_ids)
                ids, matrix = ids[keep], rows_where(matrix, keep)
            if len(ids) == 0:
                continue
            if tier is FULL:
                full_ids = ids
            quantized = quantized_of(matrix) if quantized_of is not None else None
            self.tiers.append(
                TierVectors(tier, embedder, ids, matrix, saved=saved, quantized=quantized)
            )

    def in_scope(self, chunk_ids: np.ndarray) -> TierView:
        """The same tiers restricted to `chunk_ids` (a focus or --path)."""
        view = TierView.__new__(TierView)
        view.tiers = []
        for entry in self.tiers:
            keep = np.isin(entry.ids, chunk_ids)
            if keep.any():
                view.tiers.append(
                    TierVectors(
                        entry.tier,
                        entry.embedder,
                        entry.ids[keep],
                        entry.matrix[keep],
                        entry._query_vectors,
                        entry.saved,
                    )
                )
        return view

    def orders(
        self, text: str, n: int, warnings: list[str] | None
    ) -> list[tuple[list[int], dict, float]]:
        """Per tier, (chunk ids best first, {chunk id: similarity}, the tier's fusion weight); a
        failing model is skipped with a warning, so keywords and the other tier still rank
        (fail open)."""
        out = []
        for entry in self.tiers:
            try:
                picked, sims = entry.best(text, n)
            except EmbedderError as err:
                if warnings is not None:
                    warnings.append(f"{err} Ranked without the {entry.tier.name} tier's vectors.")
                continue
            ids = entry.ids[picked].tolist()
            out.append((ids, dict(zip(ids, sims.tolist(), strict=True)), entry.tier.fusion_weight))
        return out


def tier_coverage(
    store: Store, settings: Settings, used: set[str]
) -> tuple[int, int, dict[str, TierCoverage]]:
    """(pending files, pending chunks) of the configured model, and each tier's coverage."""
    pending_files, pending_chunks = store.pending_count()
    chunks = store.chunk_count()
    coverage: dict[str, TierCoverage] = {}
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
