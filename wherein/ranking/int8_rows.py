"""A tier's best rows in two steps: int8 products pick a shortlist, exact sums rank it.

Reading the standard library's 47,534 x 256 fast vectors for one query took 2.3-3.2 ms of a
5.4 ms warm search: the product is bound by memory. An int8 copy is a quarter of it, and
SimSIMD's int8 dot-product kernels (AVX-512 VNNI, NEON, ...) read it in 0.65 ms. Those
products only pick a shortlist, `SHORTLIST_PER_RESULT` times as many rows as wanted; the
shortlisted rows' float32 sums, by the same einsum a whole matrix is read with (the same
bits, row by row), decide which rows are best and their similarities. On 165 queries of
the standard library and the visible semble sets, the exact 100 best rows were always
within the int8 200 best.

Only a resident process holds such a copy (`ResidentIndex.int8_rows`): making one costs
about 130 ms for the standard library, repaid from the second search on; a fresh search,
and any search before the copy is made, reads the float32 rows alone.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from wherein.ranking.vector import StackedRows, can_stack, check_width, similarities
from wherein.retrieval.selection import at_or_above_floor, top_k

__all__ = ["SHORTLIST_PER_RESULT", "Int8Rows", "best_rows", "can_quantize", "quantize_rows"]

log = logging.getLogger(__name__)

# Rows shortlisted by their int8 products per row wanted.
SHORTLIST_PER_RESULT = 4
# Rows quantized at a time: a block's float32 temporaries stay a few MB.
QUANTIZE_BLOCK = 4096
INT8_MAX = 127


@dataclass(frozen=True)
class Int8Rows:
    """`base` scaled by one factor into int8 (its values are at most 1: unit rows)."""

    base: np.ndarray
    rows: np.ndarray


@cache
def _kernels():  # -> the simsimd module, or None
    """SimSIMD, imported once; without it (a broken install) every row is summed, as before."""
    try:
        import simsimd
    except ImportError as err:
        log.warning("SimSIMD cannot be imported (%s): large tiers are read in float32 alone.", err)
        return None
    return simsimd


def can_quantize(base: np.ndarray) -> bool:
    """Whether `base` is worth an int8 copy: a float32 matrix large enough that einsum reads
    it (`can_stack`), which is also what the shortlist's exact sums must match."""
    if not (isinstance(base, np.ndarray) and base.ndim == 2):
        return False
    return can_stack(len(base), base.dtype) and _kernels() is not None


def quantize_rows(base: np.ndarray, between_blocks=lambda: None) -> Int8Rows:
    """`base`'s int8 copy, made a block of rows at a time, in two passes (the largest value,
    then the rows); `between_blocks()` is called before each block: the resident builder
    waits there while a search runs.

    Raises:
        ValueError: a row holds NaN or an infinity (no scale would keep its order).
    """
    blocks = [slice(start, start + QUANTIZE_BLOCK) for start in range(0, len(base), QUANTIZE_BLOCK)]
    largest = 0.0
    for block in blocks:
        between_blocks()
        high, low = float(base[block].max()), float(base[block].min())
        if not (math.isfinite(high) and math.isfinite(low)):  # max and min carry a NaN on
            raise ValueError("the rows hold a value that is not a finite number")
        largest = max(largest, high, -low)
    scale = np.float32(INT8_MAX / largest if largest > 0 else 1.0)
    rows = np.empty(base.shape, dtype=np.int8)
    for block in blocks:
        between_blocks()
        rows[block] = np.rint(base[block] * scale)
    return Int8Rows(base, rows)


def best_rows(
    query: np.ndarray, matrix: np.ndarray | StackedRows, n: int, quantized: Int8Rows | None
) -> tuple[np.ndarray, np.ndarray]:
    """(positions, similarities) of the `n` rows of `matrix` most like `query`, best first;
    of equal similarities the earlier row first.

    With `quantized` (the int8 copy of `matrix`'s base rows), only a shortlist of the base
    rows is summed exactly, and rows added since are all summed; without, every row is.

    Raises:
        EmbedderError: the query vector's width differs from the stored vectors'.
    """
    stacked = isinstance(matrix, StackedRows)
    base = matrix.base if stacked else matrix
    wanted = SHORTLIST_PER_RESULT * n
    if quantized is None or quantized.base is not base or len(matrix) <= wanted:
        sims = similarities(query, matrix)
        picked = top_k(sims, n)
        return picked, sims[picked]
    query = query.astype(np.float32, copy=False)
    check_width(query, base.shape[1])
    largest = float(np.abs(query).max())
    scaled = np.rint(query * np.float32(INT8_MAX / largest if largest > 0 else 1.0))
    # In float32: exact up to 1,040 dimensions (127 * 127 * width under 2**24), a rough
    # order past that, and its floor is found faster than float64's (25 us of 100).
    rough = np.asarray(
        _kernels().cdist(
            scaled.astype(np.int8)[None], quantized.rows, metric="dot", out_dtype="float32"
        )
    ).reshape(-1)
    added = matrix.added if stacked else base[:0]
    live = matrix.live() if stacked and matrix.alive is not None else None
    if live is not None:
        rough = rough[live]  # positions in `matrix` order: its live base rows come first
    shortlist = at_or_above_floor(rough, wanted)
    rows = shortlist if live is None else live[shortlist]
    exact = np.einsum("ij,j->i", base[rows], query)
    positions = np.concatenate([shortlist, len(rough) + np.arange(len(added))])
    sims = np.concatenate([exact, np.einsum("ij,j->i", added, query)])
    picked = top_k(sims, n)
    return positions[picked], sims[picked]
