"""Benchmark the prepare step (read, hash, skip, chunk, tokenize) on the standard library.

Prints wall and main-process CPU seconds of `prepare_files` in-process and pooled, measured in
the same run (the machine is shared: compare ratios, not seconds), and the pool's start-up cost
(time to the first result of a small pooled batch) for each start method.

Run: python scripts/bench_prepare.py [--corpus DIR] [--repeats N] [--workers N]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from measure import copy_stdlib  # noqa: E402

from wherein.index import prepare  # noqa: E402
from wherein.workspace import Root, WalkReport, walk_root  # noqa: E402

MAX_FILE_BYTES = 1_048_576


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(entries, workers: int) -> tuple[float, float, float, int]:
    wall, cpu, workers_cpu = time.perf_counter(), time.process_time(), children_cpu()
    chunks = 0
    for item in prepare.prepare_files(
        entries, max_file_bytes=MAX_FILE_BYTES, known_sha256={}, workers=workers
    ):
        chunks += len(item.chunks)
    elapsed = time.perf_counter() - wall
    return elapsed, time.process_time() - cpu, children_cpu() - workers_cpu, chunks


def first_result(entries, method: str) -> float:
    prepare.START_METHOD = method
    started = time.perf_counter()
    stream = prepare.prepare_files(
        entries, max_file_bytes=MAX_FILE_BYTES, known_sha256={}, workers=2
    )
    next(stream)
    elapsed = time.perf_counter() - started
    stream.close()
    prepare.START_METHOD = "spawn"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.corpus or copy_stdlib(Path(scratch))
        entries = list(walk_root(Root(corpus.resolve()), MAX_FILE_BYTES, WalkReport()))
        print(f"{len(entries)} files, {sum(e.size for e in entries) / 1e6:.1f} MB")
        small = entries[: prepare.POOL_MIN_FILES]
        for method in ("spawn", "forkserver", "spawn", "forkserver"):
            print(f"start-up {method:<10} first result {first_result(small, method):.3f} s")
        inproc = [prepare.prepare_file(e, MAX_FILE_BYTES, None) for e in small[:1]]
        started = time.perf_counter()
        for entry in small:
            prepare.prepare_file(entry, MAX_FILE_BYTES, None)
        per_file = (time.perf_counter() - started) / len(small)
        print(f"in-process {per_file * 1000:.1f} ms per file (first {len(small)}), {len(inproc)}")
        results: dict[str, list[tuple[float, float, float, int]]] = {"single": [], "pooled": []}
        for _ in range(args.repeats):  # interleaved, so drift hits both alike
            results["single"].append(run(entries, 0))
            results["pooled"].append(run(entries, args.workers))
        for name, rows in results.items():
            wall = statistics.median(r[0] for r in rows)
            cpu = statistics.median(r[1] for r in rows)
            workers_cpu = statistics.median(r[2] for r in rows)
            print(
                f"{name:<7} wall {wall:6.2f} s  main CPU {cpu:6.2f} s  "
                f"workers CPU {workers_cpu:6.2f} s  chunks {rows[0][3]}"
            )
        single = statistics.median(r[0] for r in results["single"])
        pooled = statistics.median(r[0] for r in results["pooled"])
        print(f"pooled/single wall ratio {pooled / single:.2f}")


if __name__ == "__main__":
    main()
