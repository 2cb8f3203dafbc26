"""The history index as a retrieval corpus: messages, ranked by keywords and by one vector space.

The query is embedded only when some message has a vector, and only by a local embedder:
history never falls back to keywords alone when that embedder fails, nor to another one.
"""

from __future__ import annotations

import numpy as np

from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError, NoLocalEmbedder
from wherein.history.keywords import keyword_order
from wherein.history.store import HistoryStore
from wherein.retrieval.corpus import VectorOrder
from wherein.retrieval.selection import top_k

__all__ = ["HistoryCorpus"]


class HistoryCorpus:
    """The messages of one open history index, for one embedder (a `retrieval.Corpus`)."""

    def __init__(self, store: HistoryStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._ids, self._matrix = store.vectors()
        self._similarity = np.zeros(0, dtype=np.float32)

    def lexical_order(self, query: str, depth: int) -> list[int]:
        return keyword_order(self.store, query, depth)

    def vector_orders(self, query: str, depth: int) -> list[VectorOrder]:
        """Raises NoLocalEmbedder (the embedder failed) or EmbedderError (another width)."""
        if len(self._ids) == 0:
            return []
        try:
            query_vector = self.embedder.embed([query])[0]
        except EmbedderError as err:
            raise NoLocalEmbedder(
                f"No local embedder answered for the history query: {err} History does not "
                "fall back to keywords alone or to any other embedder."
            ) from err
        if query_vector.shape[-1] != self._matrix.shape[1]:
            raise EmbedderError(
                f"The query vector has {query_vector.shape[-1]} dimensions but the history "
                f"index holds {self._matrix.shape[1]}-dimensional vectors. Run 'wherein history "
                "index' to re-embed."
            )
        self._similarity = self._matrix @ query_vector.astype(np.float32)
        picked = top_k(self._similarity, depth)
        order = [int(self._ids[i]) for i in picked]
        return [(order, dict(zip(order, self._similarity[picked].tolist(), strict=True)), 1.0)]

    def similarity(self, message_id: int) -> float | None:
        """The last query's similarity to the message, if it has a vector."""
        at = int(np.searchsorted(self._ids, message_id))
        if at < len(self._similarity) and self._ids[at] == message_id:
            return float(self._similarity[at])
        return None
