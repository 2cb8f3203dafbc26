"""BLAS on one thread for the whole process, set before numpy loads it where that can be done.

wherein's matrix products are small or bound by memory: a query against a tier's vectors
(`ranking.vector`), a chunk's token rows pooled (`embedding.static`). A second BLAS thread
gains nothing there and costs: OpenBLAS's threads spin after each product and sleep between
a server's searches, and waking them cost a warm search more than the product itself.
`ranking.vector` holds its products to one thread with threadpoolctl, whose search for the
loaded BLAS libraries costs each process 10 ms, more than a fresh `wherein search` spends
ranking. `OPENBLAS_NUM_THREADS=1`, set before numpy is imported, holds every product of the
process to one thread for nothing: paired on pydantic's index, a fresh search took 0.90x the
wall time and 0.66x the CPU. A value the user set is kept, and threadpoolctl holds the
products as before.
"""

from __future__ import annotations

import os
import sys
from functools import cache

__all__ = ["VARIABLE", "fixed_at_one", "one_thread_from_the_start", "set_here"]

VARIABLE = "OPENBLAS_NUM_THREADS"
_set_before_numpy = False


def one_thread_from_the_start() -> None:
    """Ask OpenBLAS for one thread, unless numpy is loaded already or the user chose a number.

    The command line calls it first thing; a library caller's process is left as it is.
    """
    global _set_before_numpy
    if "numpy" in sys.modules or VARIABLE in os.environ:
        return
    os.environ[VARIABLE] = "1"
    _set_before_numpy = True


def set_here() -> bool:
    """Whether `one_thread_from_the_start` set the variable in this process, so that a child
    process would inherit it where its user did not set it."""
    return _set_before_numpy


@cache
def fixed_at_one() -> bool:
    """Whether every BLAS product of this process runs on one thread already: the variable was
    set before numpy loaded, and numpy's BLAS is an OpenBLAS, which reads it."""
    if not _set_before_numpy:
        return False
    import numpy as np

    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):  # numpy 1.x keeps its build facts elsewhere
        return False
    return isinstance(blas, str) and "openblas" in blas.lower()
