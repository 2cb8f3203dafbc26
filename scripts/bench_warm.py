"""Warm searches on an index that already exists: the `wherein serve` path, in this process.

For comparing two versions of the code on the same index and machine: run it once per
checkout, alternating, with PYTHONPATH naming the checkout (its output says which code ran),
a few rounds, and read the ratios of the same round. The first search of the process loads
the models and starts the in-memory index; the figures start once that is built.

    PYTHONPATH=/path/to/old python scripts/bench_warm.py --workspace DIR --home DIR
    PYTHONPATH=. python scripts/bench_warm.py --workspace DIR --home DIR

Queries: the standard library's (`measure.QUERIES`) unless `--semble-repo NAME` picks the
visible semble queries of one repository. `--tiers fast` (default) ranks by BM25 and the fast
tier; `--tiers all` adds the configured model.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path

from measure import QUERIES, percentile

from wherein.resident import ResidentIndex
from wherein.search import run_search

DEFAULT_BENCH_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "bench"
REPEATS = 2


def _queries(args) -> list[str]:
    if args.semble_repo is None:
        return list(QUERIES)
    lines = (args.bench_dir / "semble_python.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    found = [row["query"] for row in rows if row["repo"] == args.semble_repo]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True, help="an indexed folder")
    parser.add_argument("--home", required=True, help="the WHEREIN_HOME holding its index")
    parser.add_argument("--semble-repo", help="ask this semble repository's queries")
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    parser.add_argument("--tiers", choices=["fast", "all"], default="fast")
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
    # The in-memory index the first search starts: older code has no method to wait on it.
    for thread in threading.enumerate():
        if thread.name == "wherein-postings":
            thread.join(120)
    queries = _queries(args)
    new = [search(q) for q in queries]
    repeated = [search(q) for _ in range(REPEATS) for q in queries]
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
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
