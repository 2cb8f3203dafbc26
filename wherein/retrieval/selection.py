"""Selection: the few best of many scores, the one top-k every ranker shares.

The k best of tens of thousands of similarities: `np.partition` over all of them took
0.35 ms of a 3 ms warm search of the standard library (47,534 fast vectors, 400 wanted for
the shortlist). A cheaper bound comes first. Deal the scores into groups, score i to group
i mod G, and take each group's maximum (one pass of elementwise maxima over the rows of a
G-wide view, no copy): at least k groups reach the k-th best of those maxima, so at least k
scores do, and every one of the k best is at or above it. Only the few hundred scores at or
above that rough floor are partitioned for the exact k-th best (0.03 ms in all). Of equal
scores the earlier row wins, in the cut and in the order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["at_or_above_floor", "top_k"]

# Groups dealt per score wanted (rounded up to a power of two): the more groups, the closer
# their k-th best maximum comes to the k-th best score (2: 1.1-1.4x k scores reach it).
GROUPS_PER_WANTED = 2
# The fewest scores per group for the maxima to pay; fewer, and every score is partitioned.
MIN_GROUP = 8
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
    """Positions, in order, of a few scores that hold the `k` best: those at or above the
    k-th best (all of them when there are hardly more than `k`). When many scores share the
    floor the cut found, those above it instead, or those and the earliest of those at it,
    so that at least `k` are kept."""
    size = len(scores)
    if size <= TIES_BEFORE_SPLIT * k:
        return np.arange(size)
    floor = _rough_floor(scores, k)
    if floor is None:
        floor = np.partition(scores, size - k)[size - k]  # the k-th best itself
    candidates = np.flatnonzero(scores >= floor)
    if len(candidates) <= k:  # (fewer only past a NaN floor: NaN sorts above every score)
        return candidates
    if len(candidates) <= TIES_BEFORE_SPLIT * k:
        held = scores[candidates]
        floor = np.partition(held, len(held) - k)[len(held) - k]  # the k-th best itself
        return candidates[held >= floor]
    # Many scores reach the floor, sharing its value (a tier of equal scores): those above
    # it come first, then the earliest of those at it.
    above = candidates[scores[candidates] > floor]
    if len(above) >= k:
        return above
    at_floor = candidates[scores[candidates] == floor][: k - len(above)]
    return np.sort(np.concatenate((above, at_floor)))


def _rough_floor(scores: np.ndarray, k: int) -> float | None:
    """The k-th best maximum of the groups the scores are dealt into, a floor at least `k`
    scores reach; None when the groups would hold too few scores for it to pay."""
    groups = 1 << (GROUPS_PER_WANTED * k - 1).bit_length()
    per_group = len(scores) // groups
    if per_group < MIN_GROUP:
        return None
    # Row r of the view holds scores r*G .. r*G+G-1, so column j is group j. The tail past
    # the last whole row is in no group: the floor is still one k scores reach, and the
    # tail's scores are cut against it with the rest.
    maxima = scores[: per_group * groups].reshape(per_group, groups).max(axis=0)
    return np.partition(maxima, groups - k)[groups - k]
