"""A tier's best rows in two steps: 4-bit products pick a shortlist, exact sums rank it.

Reading the standard library's 47,534 x 256 fast vectors for one query took 1.8-2.3 ms
in float32, bound by memory. A copy of the rows at four bits a value, with a scale for each
32 (7.5 MB against 48 MB), is read by onnxruntime's `MatMulNBits`, the kernel a quantized
language model's weights meet one token with (int8 dot products on AVX-512 VNNI, AVX2 or
NEON), in 0.3-0.4 ms; SimSIMD's int8 kernels took 0.6-0.8 ms over an int8 copy of 12 MB.

Those products only pick a shortlist, `SHORTLIST_PER_RESULT` times as many rows as wanted;
the shortlisted rows' float32 sums, by the same einsum a whole matrix is read with (the
same bits, row by row), decide which rows are best and their similarities. Over 197 queries
(the standard library's and the visible semble sets'), the exact 100 best were always among
the rough 221 best of the fast tier's 47,534 rows, and the rough 236 best of 14,000 of its
chunks' default-model vectors.

Only a resident process holds such a copy (`ResidentIndex.quantized_rows`): it is made in
a thread, and a fresh search, or any search before the copy is made, sums every row.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from wherein.onnx_runtime import load_onnxruntime
from wherein.ranking.vector import (
    StackedRows,
    base_rows,
    can_stack,
    check_unit_similarities,
    check_width,
    similarities,
)
from wherein.retrieval.selection import at_or_above_floor, top_k

__all__ = ["SHORTLIST_PER_RESULT", "QuantizedRows", "best_rows", "can_quantize", "quantize_rows"]

log = logging.getLogger(__name__)

# Rows shortlisted by their rough products per row wanted.
SHORTLIST_PER_RESULT = 4
# Rows packed at a time: a block's float32 temporaries stay a few MB.
QUANTIZE_BLOCK = 4096
# Values that share one scale (`MatMulNBits`' block_size), and the steps each side of zero
# a value is rounded to: a block's largest value is 7 steps, stored 8 above (the kernel's
# zero point for four bits).
BLOCK_VALUES = 32
STEPS = 7
ZERO_POINT = 8


@dataclass(frozen=True, eq=False)
class QuantizedRows:
    """`base`'s rows at four bits a value, in an onnxruntime session that multiplies a query
    by them."""

    base: np.ndarray
    session: Any  # onnxruntime.InferenceSession

    def products(self, query: np.ndarray) -> np.ndarray:
        """The rough dot product of `query` (float32) with every row of `base`."""
        return self.session.run(None, {"query": query[None]})[0].reshape(-1)


@cache
def _onnxruntime():  # -> the onnxruntime module, or None
    """onnxruntime, imported once, by the thread that makes a copy (not a search: it takes
    0.1 s); without it (a broken install) every row is summed, as before."""
    try:
        onnxruntime = load_onnxruntime()
    except ImportError as err:
        log.warning("onnxruntime cannot be imported (%s): large tiers are read whole.", err)
        return None
    return onnxruntime


@cache
def _warn_once(message: str) -> None:
    """Log `message` the first time only: a session that fails once fails at each search."""
    log.warning(message)


def can_quantize(base: np.ndarray) -> bool:
    """Whether `base` is worth a copy: a float32 matrix large enough that einsum reads it
    (`can_stack`), which is also what the shortlist's exact sums must match."""
    if not (isinstance(base, np.ndarray) and base.ndim == 2):
        return False
    return can_stack(len(base), base.dtype)


def quantize_rows(
    base: np.ndarray, between_blocks: Callable[[], Any] = lambda: None
) -> QuantizedRows:
    """`base`'s 4-bit copy, packed a block of rows at a time; `between_blocks()` is called
    before each block (the resident builder waits there while a search runs).

    Raises:
        ValueError: a row holds NaN or an infinity (no scale would keep its order).
        RuntimeError: onnxruntime cannot be imported or will not run the product.
    """
    runtime = _onnxruntime()
    if runtime is None:
        raise RuntimeError("onnxruntime cannot be imported")
    width = base.shape[1]
    blocks = -(-width // BLOCK_VALUES)
    packed = np.empty((len(base), blocks, BLOCK_VALUES // 2), dtype=np.uint8)
    scales = np.empty((len(base), blocks), dtype=np.float32)
    for start in range(0, len(base), QUANTIZE_BLOCK):
        between_blocks()
        rows = slice(start, start + QUANTIZE_BLOCK)
        packed[rows], scales[rows] = _packed(np.asarray(base[rows], dtype=np.float32), blocks)
    between_blocks()
    return QuantizedRows(base, _product_session(runtime, packed, scales, width))


def _packed(rows: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """(two values a byte, the first in the low four bits; each block's scale) of `rows`,
    zero-padded to whole blocks: the layout `MatMulNBits` reads."""
    if not np.isfinite(rows).all():
        raise ValueError("the rows hold a value that is not a finite number")
    padded = np.zeros((len(rows), blocks * BLOCK_VALUES), dtype=np.float32)
    padded[:, : rows.shape[1]] = rows
    values = padded.reshape(len(rows), blocks, BLOCK_VALUES)
    scales = np.abs(values).max(axis=2) / np.float32(STEPS)
    steps = np.rint(values / np.where(scales > 0, scales, 1)[..., None])
    stored = (steps + ZERO_POINT).astype(np.uint8)
    return stored[..., 0::2] | (stored[..., 1::2] << 4), scales


def _product_session(runtime, packed: np.ndarray, scales: np.ndarray, width: int):
    """An onnxruntime session computing `query @ rows.T` from the packed rows, on the
    calling thread alone (as BLAS runs on one)."""
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as err:  # a broken install: these rows are summed whole
        raise RuntimeError(f"onnx cannot be imported ({err})") from err

    count = len(packed)
    product = helper.make_node(
        "MatMulNBits",
        ["query", "rows", "scales"],
        ["products"],
        domain="com.microsoft",
        K=width,
        N=count,
        bits=4,
        block_size=BLOCK_VALUES,
        accuracy_level=4,  # the query in int8 too: int8 dot products
    )
    graph = helper.make_graph(
        [product],
        "quantized_rows",
        [helper.make_tensor_value_info("query", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("products", TensorProto.FLOAT, [1, count])],
        [
            numpy_helper.from_array(packed, "rows"),
            numpy_helper.from_array(scales.reshape(-1), "scales"),
        ],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        # The IR version of opset 17, not the newest `onnx` writes (14 in onnx 1.23), which
        # an older onnxruntime refuses: 1.23, the last for Python 3.10, reads up to 11.
        ir_version=8,
    )
    options = runtime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return runtime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
    except Exception as err:  # onnxruntime raises its own untyped errors
        raise RuntimeError(f"onnxruntime will not run the 4-bit product: {err}") from err


def best_rows(
    query: np.ndarray, matrix: np.ndarray | StackedRows, n: int, quantized: QuantizedRows | None
) -> tuple[np.ndarray, np.ndarray]:
    """(positions, similarities) of the `n` rows of `matrix` most like `query`, best first;
    of equal similarities the earlier row first.

    With `quantized` (the copy of `matrix`'s base rows), only a shortlist of the base rows
    is summed exactly, and rows added since are all summed; without, every row is.

    Raises:
        EmbedderError: the query vector's width differs from the stored vectors'.
        NotUnitRows: a row summed gives a similarity no unit row gives (damaged).
    """
    stacked = isinstance(matrix, StackedRows)
    base = base_rows(matrix)
    wanted = SHORTLIST_PER_RESULT * n
    rough = None
    if quantized is not None and quantized.base is base and len(matrix) > wanted:
        query = query.astype(np.float32, copy=False)
        check_width(query, base.shape[1])
        try:
            rough = quantized.products(query)
        except Exception as err:  # onnxruntime raises its own untyped errors: sum every row
            _warn_once(f"The 4-bit products failed ({err}): every row is summed.")
    if rough is None:
        sims = similarities(query, matrix)
        check_unit_similarities(sims)
        picked = top_k(sims, n)
        return picked, sims[picked]
    added = matrix.added if stacked else base[:0]
    live = matrix.live() if stacked and matrix.alive is not None else None
    if live is not None:
        rough = rough[live]  # positions in `matrix` order: its live base rows come first
    shortlist = at_or_above_floor(rough, wanted)
    rows = shortlist if live is None else live[shortlist]
    exact = np.einsum("ij,j->i", base[rows], query)
    positions = np.concatenate([shortlist, len(rough) + np.arange(len(added))])
    sims = np.concatenate([exact, np.einsum("ij,j->i", added, query)])
    check_unit_similarities(sims)  # the rows summed: a damaged one the copy shortlists
    picked = top_k(sims, n)
    return positions[picked], sims[picked]
