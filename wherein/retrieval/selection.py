"""Selection: the few best of many scores, the one top-k every ranker shares.

The k best of tens of thousands of similarities: `np.argpartition` over all of them took
0.72 ms of a 7 ms warm search of the standard library (47,534 fast vectors). A cheaper
bound comes first. Cut the scores into blocks and take each block's maximum: at least k
blocks reach the k-th best of those maxima, so at least k scores do, and every one of the
k best is at or above it. Only the few hundred scores at or above that floor are sorted
(0.06 ms in all). Of equal scores the earlier row wins, in the cut and in the order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["at_or_above_floor", "top_k"]

# Scores per block for the floor, and the fewest blocks worth cutting into.
BLOCK = 256
MIN_BLOCKS = 16
# Past this many candidates per wanted score, the floor is a value many scores share.
TIES_BEFORE_SPLIT = 8


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` highest scores, best first; of equal scores the earlier first."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    candidates = at_or_above_floor(scores, k)
    return candidates[np.argsort(-scores[candidates], kind="stable")[:k]]


def at_or_above_floor(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions, in order, of a few scores that hold the `k` best: those at or above a
    floor that at least `k` scores reach (the k-th best itself when there are too few blocks
    for maxima to pay; all of them when there are hardly more than `k`)."""
    blocks = len(scores) // BLOCK
    if len(scores) <= TIES_BEFORE_SPLIT * k:
        return np.arange(len(scores))
    if blocks < max(MIN_BLOCKS, k):
        floor = np.partition(scores, len(scores) - k)[len(scores) - k]  # the k-th best itself
    else:
        maxima = scores[: blocks * BLOCK].reshape(blocks, BLOCK).max(axis=1)
        # (`np.partition` is quick on distinct values; on tens of thousands of equal ones
        # around a few distinct it took 6 ms, so past a few thousand it sees only maxima.)
        floor = np.partition(maxima, blocks - k)[blocks - k]
    candidates = np.flatnonzero(scores >= floor)
    if len(candidates) <= TIES_BEFORE_SPLIT * k:
        return candidates
    # Many scores equal to the floor (a tier of equal scores): those above it come first,
    # then the earliest of those at it.
    above = candidates[scores[candidates] > floor]
    if len(above) >= k:
        return above
    at_floor = candidates[scores[candidates] == floor][: k - len(above)]
    return np.sort(np.concatenate((above, at_floor)))
