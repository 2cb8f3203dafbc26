"""Fresh-process searches of two or more checkouts, paired, on copies of one index.

Each checkout gets its own copy of the index's WHEREIN_HOME (a search keeps its query's
vector beside the index, which would spare the next checkout its model), then every query is
asked once by each checkout in turn, in an order that alternates, with `python -c "import
numpy"` beside them as the floor of any fresh process. Each query is new to each copy:
these are the figures of a `wherein search` asking something it was not asked before.

    python scripts/bench_fresh.py --workspace DIR --home DIR \\
        --checkout before=/path/to/old --checkout after=. --rounds 2

The index must exist (a first `wherein search` or `wherein index` made it). Queries: the
standard library's (`measure.QUERIES`), or `--query` (repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from measure import QUERIES, run


def _fresh_search(checkout: Path, home: Path, workspace: Path, query: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout), "WHEREIN_HOME": str(home)}
    command = [sys.executable, "-m", "wherein.cli", "search", query, "--json"]
    # `python -m` puts its working folder first on the path, before PYTHONPATH.
    done = run([*command, "--workspace", str(workspace)], env=env, cwd=checkout)
    if done.returncode != 0:
        raise RuntimeError(f"{checkout}: search {query!r} failed: {done.stderr[-2000:]}")
    return done.wall_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True, help="an indexed folder")
    parser.add_argument("--home", type=Path, required=True, help="the WHEREIN_HOME of its index")
    parser.add_argument(
        "--checkout", action="append", required=True, help="NAME=PATH of a checkout (2 or more)"
    )
    parser.add_argument("--query", action="append", help="a query (default: the stdlib's)")
    parser.add_argument("--rounds", type=int, default=1, help="times each query is asked")
    args = parser.parse_args(argv)
    checkouts = dict(item.split("=", 1) for item in args.checkout)
    if len(checkouts) < 2:
        parser.error("name two checkouts or more")
    queries = args.query or list(QUERIES)
    workspace = args.workspace.resolve()
    walls: dict[str, list[float]] = {name: [] for name in [*checkouts, "import numpy"]}
    with tempfile.TemporaryDirectory(prefix="wherein-fresh-") as scratch:
        names = list(checkouts)
        for round_number in range(args.rounds):
            homes = {}
            for name in names:  # a new copy each round: every query is new to it
                homes[name] = Path(scratch) / f"{name}-{round_number}"
                shutil.copytree(args.home, homes[name])
            for number, query in enumerate(queries):
                order = names if (number + round_number) % 2 == 0 else names[::-1]
                for name in order:
                    checkout = Path(checkouts[name]).resolve()
                    walls[name].append(_fresh_search(checkout, homes[name], workspace, query))
                numpy = run([sys.executable, "-c", "import numpy"], env=dict(os.environ))
                walls["import numpy"].append(numpy.wall_s)
    first = names[0]
    report = {}
    for name, values in walls.items():
        report[name] = {
            "p50_s": round(statistics.median(values), 4),
            "min_s": round(min(values), 4),
            "max_s": round(max(values), 4),
            "n": len(values),
        }
        if name in checkouts and name != first:
            pairs = [b / a for a, b in zip(walls[first], values, strict=True)]
            report[name][f"ratio_to_{first}_p50"] = round(statistics.median(pairs), 3)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
