"""Benchmark the prepare step (read, hash, skip, chunk, tokenize) on the standard library.

Prints wall and main-process CPU seconds of `prepare_files` in-process and pooled, measured in
the same run (the machine is shared: compare ratios, not seconds), and the pool's start-up cost
(time to the first result of a small pooled batch) for each start method.

`--refresh` instead times the whole `refresh_index` (prepare + SQLite writes) into a fresh index,
in-process against pooled.

Run: python scripts/bench_prepare.py [--corpus DIR] [--repeats N] [--workers N] [--refresh]
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
from wherein.index.refresh import refresh_index  # noqa: E402
from wherein.index.store import open_store  # noqa: E402
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


def run_refresh(corpus: Path, scratch: Path, workers: int) -> tuple[float, float, float, int]:
    path = scratch / f"index-{workers}-{time.monotonic_ns()}.sqlite"
    store = open_store(path)
    wall, cpu, workers_cpu = time.perf_counter(), time.process_time(), children_cpu()
    report = refresh_index(
        store, [Root(corpus.resolve())], max_file_bytes=MAX_FILE_BYTES, workers=workers
    )
    elapsed = time.perf_counter() - wall
    result = (elapsed, time.process_time() - cpu, children_cpu() - workers_cpu)
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return (*result, report.chunks_written)


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
    parser.add_argument("--refresh", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.corpus or copy_stdlib(Path(scratch))
        if args.refresh:
            rows = {"single": [], "pooled": []}
            for _ in range(args.repeats):
                rows["single"].append(run_refresh(corpus, Path(scratch), 0))
                rows["pooled"].append(run_refresh(corpus, Path(scratch), args.workers))
            report(rows, "refresh")
            return
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
        report(results, "prepare")


def report(results: dict[str, list[tuple[float, float, float, int]]], what: str) -> None:
    for name, rows in results.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        workers_cpu = statistics.median(r[2] for r in rows)
        print(
            f"{what} {name:<7} wall {wall:6.2f} s  main CPU {cpu:6.2f} s  "
            f"workers CPU {workers_cpu:6.2f} s  chunks {rows[0][3]}"
        )
    single = statistics.median(r[0] for r in results["single"])
    pooled = statistics.median(r[0] for r in results["pooled"])
    print(f"{what} pooled/single wall ratio {pooled / single:.2f}")


if __name__ == "__main__":
    main()
