"""Selection: the few best of many scores, the one top-k every ranker shares.

`np.argpartition` finds the k best in linear time; only those k are then sorted, stably,
so equal scores keep the order of their rows (bm25s's `selection.py` does the same split).
"""

from __future__ import annotations

import numpy as np

__all__ = ["top_k"]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` highest scores, best first; ties keep their order."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    picked = np.argpartition(-scores, k - 1)[:k]
    return picked[np.argsort(-scores[picked], kind="stable")]
