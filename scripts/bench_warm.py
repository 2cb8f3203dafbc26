"""Warm searches on an index that already exists: the `wherein serve` path, in this process.

For comparing two versions of the code on the same index and machine: run it once per
checkout, alternating, with PYTHONPATH naming the checkout (its output says which code ran),
a few rounds, and read the ratios of the same round. The first search of the process loads
the models and starts the in-memory index; the figures start once that is built.

    PYTHONPATH=/path/to/old python scripts/bench_warm.py --workspace DIR --home DIR
    PYTHONPATH=. python scripts/bench_warm.py --workspace DIR --home DIR

Queries: the standard library's (`measure.QUERIES`) unless `--semble-repo NAME` picks the
visible semble queries of one repository (`all`: of every one, 182 distinct queries, a
steadier p50 on a large index than its own 15). `--tiers fast` (default) ranks by BM25 and
the fast tier; `--tiers all` adds the configured model.

`--edit FILE` (relative to the workspace) also times what an agent meets after each change:
a function is appended to FILE, then the first search (it re-reads what changed) and the
next one are timed, `--edits` times; FILE is put back as it was at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path

from wherein.blas_threads import one_thread_from_the_start

one_thread_from_the_start()  # as `wherein serve` starts: BLAS on one thread, set before numpy

from measure import QUERIES, percentile  # noqa: E402

from wherein.resident import ResidentIndex  # noqa: E402
from wherein.search import run_search  # noqa: E402

DEFAULT_BENCH_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "bench"
REPEATS = 2
EDITED = "\n\ndef wherein_bench_edit_{n}(value):\n    return value + {n}\n"


def _queries(args) -> list[str]:
    if args.semble_repo is None:
        return list(QUERIES)
    lines = (args.bench_dir / "semble_python.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    wanted = args.semble_repo
    found = list(dict.fromkeys(r["query"] for r in rows if wanted in ("all", r["repo"])))
    if not found:
        raise SystemExit(f"No semble queries for {args.semble_repo!r} in {args.bench_dir}.")
    return found


def timed_searcher(workspace: Path, settings, full, fast, tiers: frozenset[str]):
    """(search, resident): `search(query)` runs one resident search and returns its seconds."""
    resident = ResidentIndex()

    def search(query: str) -> float:
        started = time.perf_counter()
        run_search(
            query,
            workspace=workspace,
            settings=settings,
            embedder=full,
            fast_embedder=fast,
            tiers=tiers,
            resident=resident,
        )
        return time.perf_counter() - started

    return search, resident


def _wait_for_memory() -> None:
    # What a search starts building (the in-memory index, quantized copies of tier rows):
    # older code has no method to wait on them ("wherein-int8": before 4-bit copies).
    for thread in threading.enumerate():
        if thread.name in ("wherein-postings", "wherein-quantize", "wherein-int8"):
            thread.join(120)


def _edits(args, workspace: Path, search, queries: list[str]) -> tuple[list[float], list[float]]:
    """(first search after each edit, the search after it) in seconds; [] without --edit."""
    if args.edit is None:
        return [], []
    target = workspace / args.edit
    original = target.read_bytes()
    first, second = [], []
    try:
        for n in range(args.edits):
            target.write_bytes(original + EDITED.format(n=n).encode())
            first.append(search(queries[n % len(queries)]))
            second.append(search(queries[(n + 1) % len(queries)]))
            _wait_for_memory()
    finally:
        target.write_bytes(original)
    return first, second


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True, help="an indexed folder")
    parser.add_argument("--home", required=True, help="the WHEREIN_HOME holding its index")
    parser.add_argument("--semble-repo", help="ask this semble repository's queries ('all')")
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    parser.add_argument("--tiers", choices=["fast", "all"], default="fast")
    parser.add_argument("--edit", help="a file of the workspace to edit between searches")
    parser.add_argument("--edits", type=int, default=5, help="edits of --edit (default 5)")
    args = parser.parse_args()
    os.environ["WHEREIN_HOME"] = args.home
    import wherein
    from wherein.config import load_settings
    from wherein.embedding.registry import create_embedder, create_fast_embedder

    workspace = args.workspace.resolve()
    settings = load_settings(workspace)
    fast = create_fast_embedder(settings)
    full = create_embedder(settings) if args.tiers == "all" else None
    tiers = frozenset({"fast", "full"} if args.tiers == "all" else {"fast"})
    search, resident = timed_searcher(workspace, settings, full, fast, tiers)
    search("the first search of a session")
    _wait_for_memory()
    queries = _queries(args)
    new = [search(q) for q in queries]
    repeated = [search(q) for _ in range(REPEATS) for q in queries]
    after_edit, next_after_edit = _edits(args, workspace, search, queries)
    resident.drop_store()

    def ms(values: list[float], share: float) -> float:
        return round(1000 * percentile(values, share), 2)

    report = {
        "code": str(Path(wherein.__file__).resolve().parent.parent),
        "queries": len(queries),
        "new_p50_ms": ms(new, 0.5),
        "new_p95_ms": ms(new, 0.95),
        "repeated_p50_ms": ms(repeated, 0.5),
        "repeated_p95_ms": ms(repeated, 0.95),
    }
    if after_edit:
        report["after_edit_p50_ms"] = ms(after_edit, 0.5)
        report["after_edit_max_ms"] = ms(after_edit, 1.0)
        report["next_after_edit_p50_ms"] = ms(next_after_edit, 0.5)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
