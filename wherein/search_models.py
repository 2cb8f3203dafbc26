"""The embedders of one search: given warm by a long-lived caller, or loaded when first needed.

A model loads only when the index holds vectors it must rank; one whose vector for the
query is already saved beside the index waits until some other text needs embedding.
"""

from __future__ import annotations

from wherein.config import Settings
from wherein.embedding.base import Embedder, EmbedderIdentity
from wherein.embedding.registry import (
    DeferredEmbedder,
    FastTierModel,
    check_endpoint,
    create_embedder,
    fast_tier_model,
    in_process_model,
)
from wherein.errors import EmbedderError
from wherein.index.query_vectors import QueryVectors
from wherein.index.store import Store
from wherein.index.tiers import FAST, FULL
from wherein.resident import ResidentIndex, kept_while_unchanged

__all__ = ["SearchModels"]


class SearchModels:
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
        stored = store.get_meta(FULL.meta_key)
        has_full = stored and kept_while_unchanged(
            resident, store, "has_full", lambda: store.has_vectors(FULL)
        )
        full_usable = False
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
            if self.full is not None:
                full_usable = self.full.identity.key() == stored
                if not full_usable:  # the model was changed since `wherein index` ran
                    warnings.append(
                        f"The index's vectors were made by {stored}, not by the configured "
                        f"model {self.full.identity.key()}: ranked by the fast tier and "
                        "keywords until 'wherein index' embeds the chunks again."
                    )
        if FAST.name in wanted and store.get_meta(FAST.meta_key) is not None:
            # The fast tier ranks only what the full tier lacks: with the full tier complete
            # and its model loaded, the fast model need not load at all.
            full_complete = full_usable and not kept_while_unchanged(
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
    """`identity`, when `saved` holds its model's vector for `text` (so the model may wait).

    For the fast tier's static model, a vector not saved yet is made from the token ids
    indexing kept for the query's pieces, when it kept all of them, and saved.
    """
    if saved is None or identity is None:
        return None
    if saved.get(identity, text) is None:
        from wherein.embedding.static import StaticEmbedder, query_from_pieces

        if identity != StaticEmbedder.identity:
            return None
        vector = query_from_pieces(text, lambda pieces: saved.known_pieces(identity, pieces))
        if vector is None:
            return None
        saved.put(identity, text, vector)
    return identity
