"""In-memory BM25 against FTS5 on one built index: the same order, and how much faster.

Reads the chunks' terms from an index that `wherein index` or `wherein search` built, builds
`wherein.ranking.postings.Postings` from them as a `wherein serve` session does, and runs
every visible benchmark query through both engines: build seconds, p50/p95 per engine (FTS5
is the baseline of the same run), and how many queries' orders differ (should be 0).

Run:
    WHEREIN_HOME=/tmp/h wherein search "anything" --workspace /path/to/repo   # builds the index
    python scripts/bench_resident_lexical.py --index /tmp/h/workspaces/<name>/index.db
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from measure import percentile

from wherein.ranking.postings import Postings
from wherein.ranking.tokens import query_tokens
from wherein.storage.database import open_read_only
from wherein.storage.lexical import lexical_order

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT.parent / "shared" / "bench"
LIMIT = 100  # search.CANDIDATES_PER_RANKER


def _queries(bench_dir: Path) -> list[str]:
    texts: list[str] = []
    for name in ("semble_python.jsonl", "queries_visible.jsonl"):
        path = bench_dir / name
        if path.exists():
            texts += [json.loads(line)["query"] for line in path.read_text().splitlines()]
    return list(dict.fromkeys(texts))


def _timed(call) -> tuple[object, float]:
    started = time.perf_counter()
    value = call()
    return value, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="an index.db to read")
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    parser.add_argument("--repeats", type=int, default=3, help="passes over the queries")
    args = parser.parse_args(argv)
    conn = open_read_only(args.index)
    rows = conn.execute("SELECT rowid, terms FROM lexical ORDER BY rowid")
    postings, build_s = _timed(lambda: Postings(rows))
    queries = [query_tokens(q) for q in _queries(args.bench_dir)]
    fts5, memory, differ = [], [], 0
    for _ in range(args.repeats):
        for terms in queries:
            expected, spent = _timed(lambda t=terms: lexical_order(conn, t, LIMIT))
            fts5.append(spent)
            found, spent = _timed(lambda t=terms: postings.order(t, LIMIT))
            memory.append(spent)
            differ += [c for c, _ in found] != [c for c, _ in expected]
    print(f"{len(postings)} chunks, {len(postings.vocabulary)} terms, built in {build_s:.2f} s")
    for name, values in (("fts5", fts5), ("in memory", memory)):
        print(
            f"{name:>10}: p50 {1000 * statistics.median(values):.3f} ms, "
            f"p95 {1000 * percentile(values, 0.95):.3f} ms"
        )
    print(f"p50 ratio in memory / fts5: {statistics.median(memory) / statistics.median(fts5):.3f}")
    print(f"queries whose order differs: {differ} of {len(queries) * args.repeats}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
