"""The command line runs BLAS on one thread from its start, and ranks with the same sums."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from wherein.blas_threads import VARIABLE
from wherein.ranking.vector import similarities

# Run in a new interpreter: this one imported numpy long ago. Prints what a command-line
# process sees after one query's similarities over a small tier (the BLAS path).
PROBE = """
import json, os, sys
import wherein.cli
import numpy as np
from wherein.ranking.vector import similarities
rows = np.random.default_rng(7).standard_normal((2000, 256)).astype(np.float32)
rows /= np.linalg.norm(rows, axis=1, keepdims=True)
sims = similarities(rows[3], rows)
searched = "threadpoolctl" in sys.modules
from threadpoolctl import threadpool_info
threads = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({"variable": os.environ.get("OPENBLAS_NUM_THREADS"), "searched": searched,
                  "threads": threads, "sims": sims.tobytes().hex()}))
"""


def _probe(**environ: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != VARIABLE} | environ
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _sums_here() -> str:
    rows = np.random.default_rng(7).standard_normal((2000, 256)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return similarities(rows[3], rows).tobytes().hex()  # threadpoolctl holds it to one thread


def test_the_command_line_sets_one_blas_thread_before_numpy_and_skips_threadpoolctl():
    seen = _probe()
    assert seen["variable"] == "1"
    assert seen["threads"] == [1]
    assert not seen["searched"]  # no 10 ms search for the BLAS libraries
    assert seen["sims"] == _sums_here()  # the same sums to the last bit


def test_a_thread_count_the_user_chose_is_kept_and_threadpoolctl_holds_the_product():
    seen = _probe(OPENBLAS_NUM_THREADS="2")
    assert seen["variable"] == "2" and seen["threads"] == [2]
    assert seen["searched"]
    assert seen["sims"] == _sums_here()
