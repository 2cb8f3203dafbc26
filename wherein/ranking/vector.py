"""Vector similarity: stored rows are unit length, so cosine is a dot product.

The product is bound by memory, not arithmetic. Up to a few thousand rows (a matrix that
stays in the CPU's caches) BLAS on one thread is quickest. Past that, OpenBLAS's
matrix-vector kernel for row-major rows read the standard library's 47,534 x 256 fast
vectors at about 10 GB/s (4.6 ms), where numpy's own einsum loop, one thread with no BLAS
at all, took 2.7 ms (2.0x, up to 150,000 rows; 1.8x at 384 dimensions).

BLAS runs on one thread: a second gains little on a memory-bound product, and OpenBLAS's
threads sleep between a resident server's queries, so waking them cost a warm search more
than the product itself (6 ms of a 10 ms search of pydantic on a busy 2-core machine,
against 0.03 ms on one thread). The command line holds the whole process to one thread
before numpy loads (`wherein.blas_threads`); elsewhere threadpoolctl holds each product.
Either way every caller, fresh or resident, gets the same sums to the last bit for the same
matrix.

A resident search holds a large tier as `StackedRows` after a change: the rows it held
that are still alive, then the rows added since. Its similarities are the same sums as
the whole matrix's, for einsum sums each row alone, so only matrices that einsum reads may
be stacked (`can_stack`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from wherein.blas_threads import fixed_at_one
from wherein.errors import EmbedderError

__all__ = [
    "EINSUM_MIN_ROWS",
    "StackedRows",
    "base_rows",
    "can_stack",
    "check_width",
    "rows_where",
    "similarities",
    "NotUnitRows",
    "check_unit_similarities",
    "unit_rows",
]

# How far a unit query's similarity with a unit row may stray past 1 in float32 sums (by
# far less than this); further, or NaN, and the row was not written as a unit vector.
UNIT_SLACK = 1e-3
# From this many rows numpy's einsum beats one BLAS thread (0.75 against 0.94 ms at 10,000
# rows of 256; 0.12 against 0.07 ms at 2,000).
EINSUM_MIN_ROWS = 8192


@cache
def _blas():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@dataclass(frozen=True)
class StackedRows:
    """The rows of `base` that are `alive` (every row when None), then `added`, read as one
    float32 matrix of `shape`, without copying `base`."""

    base: np.ndarray
    alive: np.ndarray | None
    added: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        kept = len(self.base) if self.alive is None else int(np.count_nonzero(self.alive))
        return kept + len(self.added), self.base.shape[1]

    @property
    def size(self) -> int:
        rows, width = self.shape
        return rows * width

    @property
    def dtype(self) -> np.dtype:
        return self.base.dtype

    def __len__(self) -> int:
        return self.shape[0]

    def live(self) -> np.ndarray:
        """The positions in `base` of its rows that are alive, in order."""
        return np.arange(len(self.base)) if self.alive is None else np.flatnonzero(self.alive)

    def __getitem__(self, keep: np.ndarray) -> np.ndarray:
        """The rows where the boolean `keep` (one per row) is true, as a new array."""
        kept = self.live()
        return np.concatenate(
            [self.base[kept[keep[: len(kept)]]], self.added[keep[len(kept) :]]]
        ).astype(np.float32, copy=False)

    def products(self, query: np.ndarray) -> np.ndarray:
        base = np.einsum("ij,j->i", self.base, query)
        if self.alive is not None:
            base = base[self.alive]
        return np.concatenate([base, np.einsum("ij,j->i", self.added, query)])


def rows_where(matrix: np.ndarray | StackedRows, keep: np.ndarray) -> np.ndarray | StackedRows:
    """`matrix[keep]` (a boolean per row): a view that copies no row of a large matrix.

    The fast tier ranks only what the full one lacks, and while the full tier is being
    filled that was a copy of most of the fast matrix (48 MB for the standard library) at
    every change. Below what einsum reads the rows are copied, as a fresh search's sums
    for so few rows come from BLAS.
    """
    count = int(np.count_nonzero(keep))
    if not can_stack(count, matrix.dtype):
        return matrix[keep]
    if isinstance(matrix, np.ndarray):
        return StackedRows(matrix, keep, matrix[:0])
    live = matrix.live()
    alive = np.zeros(len(matrix.base), dtype=bool)
    alive[live[keep[: len(live)]]] = True
    return StackedRows(matrix.base, alive, matrix.added[keep[len(live) :]])


def base_rows(matrix: np.ndarray | StackedRows) -> np.ndarray:
    """The rows `matrix` is read from: its base when stacked, else itself."""
    return matrix.base if isinstance(matrix, StackedRows) else matrix


def can_stack(rows: int, dtype: np.dtype) -> bool:
    """Whether a matrix of `rows` rows may be held as `StackedRows` (einsum reads it)."""
    return rows >= EINSUM_MIN_ROWS and dtype == np.float32


def check_width(query: np.ndarray, width: int) -> None:
    """Raise `EmbedderError` unless `query` has the stored vectors' `width`."""
    if query.shape[-1] != width:
        raise EmbedderError(
            f"The query vector has {query.shape[-1]} dimensions but the index holds "
            f"{width}-dimensional vectors. Run 'wherein index' to re-embed."
        )


def similarities(query: np.ndarray, matrix: np.ndarray | StackedRows) -> np.ndarray:
    """Cosine similarity of one unit query vector with every row of `matrix`.

    Raises:
        EmbedderError: the query vector's width differs from the stored vectors'.
    """
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    check_width(query, matrix.shape[1])
    query = query.astype(np.float32, copy=False)
    # Damaged rows (NaN, huge) are caught by `check_unit_similarities`, said in a sentence:
    # numpy's own warning would print a source line on stderr first.
    with np.errstate(invalid="ignore", over="ignore"):
        if isinstance(matrix, StackedRows):
            return matrix.products(query)
        if can_stack(len(matrix), matrix.dtype):
            return np.einsum("ij,j->i", matrix, query)
        if fixed_at_one():  # the whole process runs BLAS on one thread (`blas_threads`)
            return matrix @ query
        with _blas().limit(limits=1, user_api="blas"):
            return matrix @ query


class NotUnitRows(ValueError):
    """Similarities no unit rows give a unit query: a row was damaged after it was written."""


def check_unit_similarities(sims: np.ndarray) -> None:
    """Raise NotUnitRows unless `sims`, a unit query's similarities, could come from unit
    rows: none NaN, none past 1 either way (one pass over them, 20 us for 47,534).

    Raises:
        NotUnitRows: one is NaN or past 1.
    """
    if len(sims) and not np.abs(sims).max() <= 1 + UNIT_SLACK:
        raise NotUnitRows("a similarity past 1 or NaN")


def unit_rows(matrix: np.ndarray | StackedRows) -> bool:
    """Whether every row of `matrix` is a unit vector (or all zeros, as an empty text's is)."""
    return not len(rows_not_unit(matrix))


def rows_not_unit(matrix: np.ndarray | StackedRows) -> np.ndarray:
    """The positions of the rows of `matrix` that are neither unit vectors nor all zeros."""
    rows = _all_rows(matrix)
    with np.errstate(invalid="ignore", over="ignore"):  # damaged rows: what this finds
        norms = np.einsum("ij,ij->i", rows, rows)
        return np.flatnonzero(~((np.abs(norms - 1) <= UNIT_SLACK) | (norms == 0)))


def zero_rows(matrix: np.ndarray | StackedRows) -> np.ndarray:
    """The positions of the rows of `matrix` that are all zeros."""
    with np.errstate(invalid="ignore"):  # a damaged row's NaN is not a zero either
        return np.flatnonzero(~_all_rows(matrix).any(axis=1))


def _all_rows(matrix: np.ndarray | StackedRows) -> np.ndarray:
    """Every row of `matrix` in one array, in order (a stacked matrix's live rows only)."""
    if isinstance(matrix, StackedRows):
        return np.concatenate([matrix.base[matrix.live()], matrix.added])
    return matrix
