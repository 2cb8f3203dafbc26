"""Speed benchmark: what a new user waits for, against baselines measured in the same run.

For each corpus (a folder; the semble sdists, the standard library, this repository):

- first: a fresh `wherein search --json` on a never-indexed copy (a new WHEREIN_HOME each
  run). It walks, chunks, writes the lexical index and the fast tier, then answers:
  this is "walk + chunk + lexical + fast tier" and the first answer in one figure.
- again: a fresh `wherein search` on the index the first one left, nothing changed, for
  queries it has not been asked before (its model embeds them); `again_repeated` asks the
  first search's query again (its vector is kept beside the index).
- warm: the same code path a `wherein serve` session runs, in one process with a resident
  index and warm models, once what it builds after its first search is built: p50 / p95
  over the queries, once with every tier the index has and once with the fast tier alone.
- with --full, also `wherein index` (all tiers: the configured model too), then `again`
  and `warm` with all tiers.

Baselines, each run in the same session: `python -c pass` and `python -c "import numpy"`
(the floor of any fresh process), and for warm searches nothing (they are in process).
The machine is shared and noisy: read the ratios, and the min/median/max in the JSON.

    python scripts/bench_speed.py --corpus-root /tmp/bench-corpus --repo flask --repo requests
    python scripts/bench_speed.py --stdlib --self --runs 3 --out /tmp/speed.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_warm import timed_searcher
from measure import QUERIES as STDLIB_QUERIES
from measure import copy_stdlib, percentile, run

import wherein
from wherein.blas_threads import VARIABLE, set_here
from wherein.config import load_settings
from wherein.embedding.registry import create_embedder, create_fast_embedder

ROOT = Path(__file__).resolve().parent.parent
CODE_ROOT = Path(wherein.__file__).resolve().parent.parent
DEFAULT_BENCH_DIR = ROOT.parent / "shared" / "bench"
SELF_QUERIES = (
    "where are search results ranked",
    "reciprocal rank fusion",
    "how is the embedding endpoint guarded",
    "which files does the walk skip",
    "chunk a python file with tree-sitter",
    "usage meter rows",
)
WARM_REPEATS = 3


def _wherein(args: list[str], home: Path, workspace: Path):
    env = {**_plain_environ(), "WHEREIN_HOME": str(home)}
    command = [sys.executable, "-m", "wherein.cli", *args, "--workspace", str(workspace)]
    # `python -m` puts its working folder first on the path: run it in the checkout this
    # script imported (PYTHONPATH's, when set), or another checkout's code would run.
    return run(command, env=env, cwd=CODE_ROOT)


def _plain_environ() -> dict[str, str]:
    """This process's environment as the user gave it, for the fresh processes timed: not the
    one BLAS thread that importing bench_warm set for its warm searches (as `wherein serve`
    starts), which each `wherein` run sets for itself."""
    env = dict(os.environ)
    if set_here():
        env.pop(VARIABLE, None)
    return env


def _stats(values: list[float]) -> dict:
    return {
        "min": round(min(values), 4),
        "median": round(statistics.median(values), 4),
        "max": round(max(values), 4),
        "p95": round(percentile(values, 0.95), 4),
        "n": len(values),
    }


def _baselines(runs: int) -> dict:
    out = {}
    for name, code in (("python", "pass"), ("import numpy", "import numpy")):
        walls = [
            run([sys.executable, "-c", code], env=_plain_environ()).wall_s for _ in range(runs)
        ]
        out[name] = _stats(walls)
    return out


def _search_args(query: str) -> list[str]:
    return ["search", query, "--json", "--limit", "10"]


def measure_corpus(name: str, folder: Path, queries: list[str], args) -> dict:
    """first, again and warm figures for one folder (copied, so nothing writes into it)."""
    result: dict = {"name": name, "folder": str(folder)}
    with tempfile.TemporaryDirectory(prefix="wherein-speed-") as scratch:
        scratch_path = Path(scratch)
        work = scratch_path / folder.name
        shutil.copytree(folder, work, symlinks=True)
        firsts, rss, payload = [], [], None
        for attempt in range(args.runs):
            home = scratch_path / f"home-{attempt}"
            done = _wherein(_search_args(queries[0]), home, work)
            if done.returncode != 0:
                raise RuntimeError(f"{name}: first search failed: {done.stderr[-2000:]}")
            firsts.append(done.wall_s)
            rss.append(done.maxrss_mb)
            payload = json.loads(done.stdout)
        home = scratch_path / f"home-{args.runs - 1}"
        result["first"] = _stats(firsts) | {"peak_rss_mb": round(max(rss), 1)}
        result["tiers_after_first"] = payload["tiers"]
        result["first_top"] = [r["path"] for r in payload["results"][:3]]
        result["again"] = _stats(
            [_wherein(_search_args(q), home, work).wall_s for q in queries[1 : 1 + args.runs * 2]]
        )
        result["again_repeated"] = _stats(
            [_wherein(_search_args(queries[0]), home, work).wall_s for _ in range(args.runs)]
        )
        result["warm_fast"] = _warm(work, home, queries, frozenset({"fast"}))
        if args.full:
            indexed = _wherein(["index"], home, work)
            if indexed.returncode != 0:
                raise RuntimeError(f"{name}: wherein index failed: {indexed.stderr[-2000:]}")
            result["full_index_s"] = round(indexed.wall_s, 2)
            result["full_index_line"] = indexed.stdout.strip().splitlines()[-1:]
            result["again_all_tiers"] = _stats(
                [_wherein(_search_args(q), home, work).wall_s for q in queries[: args.runs * 2]]
            )
            result["warm_all_tiers"] = _warm(work, home, queries, frozenset({"fast", "full"}))
    return result


def _warm(workspace: Path, home: Path, queries: list[str], tiers: frozenset[str]) -> dict:
    """p50/p95 of in-process searches through a resident index, as `wherein serve` runs them."""
    previous = os.environ.get("WHEREIN_HOME")
    os.environ["WHEREIN_HOME"] = str(home)
    try:
        settings = load_settings(workspace)
        full = create_embedder(settings) if "full" in tiers else None
        fast = create_fast_embedder(settings)
        search, resident = timed_searcher(workspace, settings, full, fast, tiers)
        search(queries[0])  # loads what a session has loaded by its second call
        # ... and what it builds in a thread after its first: the in-memory lexical index
        # and chunk places (a quarter second for pydantic, 3-5 s for the standard library).
        resident.wait_for_memory()
        first_pass = [search(q) for q in queries]  # new query texts: their vectors computed
        repeats = [search(q) for _ in range(WARM_REPEATS - 1) for q in queries]
        resident.drop_store()
    finally:
        if previous is None:
            os.environ.pop("WHEREIN_HOME", None)
        else:
            os.environ["WHEREIN_HOME"] = previous
    return {"new_queries": _stats(first_pass), "repeated": _stats(repeats or first_pass)}


def _semble_queries(bench_dir: Path) -> dict[str, tuple[str, str, list[str]]]:
    """repo -> (corpus_dir, root, queries) from the semble set."""
    out: dict[str, tuple[str, str, list[str]]] = {}
    for line in (bench_dir / "semble_python.jsonl").read_text().splitlines():
        row = json.loads(line)
        entry = out.setdefault(row["repo"], (row["corpus_dir"], row["root"], []))
        entry[2].append(row["query"])
    return out


def _tracked_copy(destination: Path) -> Path:
    """This repository's tracked files, as a fresh clone would have them."""
    target = destination / "wherein-self"
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-root", type=Path, help="where get_sdists.py unpacked")
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    parser.add_argument("--repo", action="append", default=[], help="semble repo (repeatable)")
    parser.add_argument("--all-semble", action="store_true", help="every semble repo")
    parser.add_argument(
        "--sdist",
        action="append",
        default=[],
        help="a semble repo's whole unpacked sdist (docs, tests and all), not its package",
    )
    parser.add_argument("--stdlib", action="store_true", help="a copy of the standard library")
    parser.add_argument("--self", action="store_true", help="this repository's tracked files")
    parser.add_argument("--runs", type=int, default=3, help="fresh-process runs per figure")
    parser.add_argument("--full", action="store_true", help="also 'wherein index' (all tiers)")
    parser.add_argument("--out", type=Path, help="JSON report path")
    args = parser.parse_args(argv)

    _compile_package()
    report: dict = {"baselines": _baselines(max(args.runs, 3)), "corpora": []}
    semble = _semble_queries(args.bench_dir)
    repos = sorted(semble) if args.all_semble else args.repo
    if (repos or args.sdist) and args.corpus_root is None:
        parser.error("--repo and --all-semble need --corpus-root")
    with tempfile.TemporaryDirectory(prefix="wherein-speed-src-") as sources:
        targets: list[tuple[str, Path, list[str]]] = []
        for repo in repos:
            corpus_dir, root, queries = semble[repo]
            targets.append((repo, args.corpus_root / corpus_dir / root, queries))
        for repo in args.sdist:
            corpus_dir, _, queries = semble[repo]
            targets.append((f"{repo} sdist", args.corpus_root / corpus_dir, queries))
        if args.self:
            targets.append(("wherein", _tracked_copy(Path(sources)), list(SELF_QUERIES)))
        if args.stdlib:
            targets.append(("stdlib", copy_stdlib(Path(sources)), list(STDLIB_QUERIES)))
        for name, folder, queries in targets:
            print(f"measuring {name} ({folder})", file=sys.stderr)
            report["corpora"].append(measure_corpus(name, folder, queries, args))
    _print(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
        print(f"\nJSON: {args.out}")
    return 0


def _compile_package() -> None:
    """Write the package's bytecode first, as `pip install` does: a checkout run with
    PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module in every fresh process
    (86 ms of a 0.4 s search on the standard library)."""
    import compileall

    compileall.compile_dir(str(ROOT / "wherein"), quiet=1)


def _print(report: dict) -> None:
    base = report["baselines"]
    numpy_s = base["import numpy"]["median"]
    print(
        f"baselines: python -c pass {base['python']['median']:.3f} s, "
        f"import numpy {numpy_s:.3f} s (medians)"
    )
    header = (
        "corpus",
        "first s",
        "x numpy",
        "again s",
        "warm fast p50/p95 ms",
        "index all s",
        "again all s",
        "warm all p50/p95 ms",
    )
    print(" | ".join(header))
    for c in report["corpora"]:
        warm = c["warm_fast"]["new_queries"]
        cells = [
            c["name"],
            f"{c['first']['median']:.2f}",
            f"{c['first']['median'] / numpy_s:.1f}",
            f"{c['again']['median']:.2f}",
            f"{warm['median'] * 1000:.1f} / {warm['p95'] * 1000:.1f}",
        ]
        if "full_index_s" in c:
            all_warm = c["warm_all_tiers"]["new_queries"]
            cells += [
                f"{c['full_index_s']:.1f}",
                f"{c['again_all_tiers']['median']:.2f}",
                f"{all_warm['median'] * 1000:.1f} / {all_warm['p95'] * 1000:.1f}",
            ]
        print(" | ".join(cells))


if __name__ == "__main__":
    raise SystemExit(main())
