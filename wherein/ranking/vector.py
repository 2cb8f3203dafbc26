"""Vector similarity: stored rows are unit length, so cosine is a dot product.

The product runs on one BLAS thread. It is bound by memory, not arithmetic, so a second
thread gains little; and OpenBLAS's threads sleep between a resident server's queries, so
waking them cost a warm search more than the product itself (6 ms of a 10 ms search of
pydantic on a busy 2-core machine, against 0.03 ms on one thread). One thread also gives
every caller, fresh or resident, the same sums to the last bit.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from wherein.errors import EmbedderError

__all__ = ["similarities"]


@cache
def _blas():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


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
    with _blas().limit(limits=1, user_api="blas"):
        return matrix @ query.astype(np.float32)
