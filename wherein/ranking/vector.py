"""Vector similarity: stored rows are unit length, so cosine is a dot product."""

from __future__ import annotations

import numpy as np

from wherein.errors import EmbedderError

__all__ = ["similarities"]


def similarities(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Cosine similarity of one unit query vector with every row of `matrix`.

    Raises:
        EmbedderError: the query vector's width differs from the stored vectors'.
    """
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    if query.shape[-1] != matrix.shape[1]:
        raise EmbedderError(
            f"The query vector has {query.shape[-1]} dimensions but the index holds "
            f"{matrix.shape[1]}-dimensional vectors. Run 'wherein index' to re-embed."
        )
    return matrix @ query.astype(np.float32)
