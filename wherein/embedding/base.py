"""The Embedder protocol every provider implements, and the identity the index stores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # numpy only where rows are normalized: `wherein status` reads identities
    import numpy as np

__all__ = ["Embedder", "EmbedderIdentity", "normalize_rows"]


@dataclass(frozen=True)
class EmbedderIdentity:
    """Which vector space a vector belongs to. Two identities never share an index."""

    provider: str
    model: str
    dimension: int

    def key(self) -> str:
        return f"{self.provider}:{self.model}:{self.dimension}"

    @classmethod
    def from_key(cls, key: str) -> EmbedderIdentity | None:
        """The identity `key()` wrote (a model name may hold `:`), or None for another text."""
        provider, _, rest = key.partition(":")
        model, _, dimension = rest.rpartition(":")
        if not provider or not model or not dimension.isdigit():
            return None
        return cls(provider, model, int(dimension))


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 rows."""

    identity: EmbedderIdentity

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts`; returns an array of shape (len(texts), dimension), rows of length 1.

        Raises:
            EmbedderError: the model could not answer.
        """
        ...


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale each row to unit length; an all-zero row stays zero."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
