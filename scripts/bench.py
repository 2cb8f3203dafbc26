"""The visible quality benchmark, run in process, scored by the shared scorer's own code.

`../shared/bench/score.py` runs a command per query; this runs wherein's library
directly (one model load, indexes kept under --home between runs) and hands the
results to the same `evaluate` and `print_tables`, so the numbers are computed
exactly as the scorer computes them. Ablations run in the same process, each
with one ranking signal switched off, next to the scorer's bm25 and ripgrep
baselines.

    python scripts/bench.py --corpus-root /tmp/bench-corpus --ablate

--expansion and --rerank add retrievers with those model steps on (against the chat model in
your config, or --chat-model/--chat-api-base), next to plain wherein, and count on stderr how
often each step was used, timed out or failed: a step that never answered measured nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from wherein.config import load_settings
from wherein.embedding.registry import create_embedder, create_fast_embedder
from wherein.index.tiers import FAST, FULL, TIERS
from wherein.indexing import build_index
from wherein.ranking.signals import SIGNALS
from wherein.search import run_search

DEFAULT_BENCH_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "bench"


def _load_scorer(bench_dir: Path):
    spec = importlib.util.spec_from_file_location("wherein_bench_score", bench_dir / "score.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"No score.py in {bench_dir}; pass --bench-dir.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class InProcessWherein:
    """A retriever with the scorer's interface: prepare(folder) then search(query, limit)."""

    def __init__(
        self,
        scorer,
        name: str,
        provider: str,
        signals: frozenset[str],
        steps: dict[str, str] | None = None,
        tiers: frozenset[str] = frozenset(TIERS),
    ) -> None:
        self.scorer = scorer
        self.tiers = tiers
        self.name = name
        self.provider = provider
        self.signals = signals
        self.steps = steps or {}  # WHEREIN_* variables that turn model steps on
        self.outcomes: Counter[str] = Counter()
        self.errors: list[str] = []
        self._embedder = None
        self._fast = None

    def _settings(self, folder: Path):
        environ = {**os.environ, "WHEREIN_EMBEDDING_PROVIDER": self.provider, **self.steps}
        return load_settings(folder, environ=environ)

    def prepare(self, folder: str) -> float:
        self.folder = Path(folder)
        self.settings = self._settings(self.folder)
        started = time.perf_counter()
        build_index(self.folder, self.settings)
        if self._embedder is None:
            self._embedder = create_embedder(self.settings)
            self._fast = create_fast_embedder(self.settings)
        return time.perf_counter() - started

    def search(self, query: str, limit: int):
        result = run_search(
            query,
            workspace=self.folder,
            settings=self.settings,
            limit=limit,
            embedder=self._embedder,
            fast_embedder=self._fast,
            signals=self.signals,
            tiers=self.tiers,
            cold_budget_s=0.0,
        )
        for step in ("expansion", "rerank"):
            status = getattr(result, step).status
            if status != "off":
                self.outcomes[f"{step} {status}"] += 1
        return [
            self.scorer.Hit(
                str(self.folder / hit.path), hit.start_line, hit.end_line, len(hit.excerpt)
            )
            for hit in result.hits
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-root", required=True, help="where get_sdists.py unpacked")
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    parser.add_argument("--set", choices=["semble", "commits", "all"], default="all")
    parser.add_argument("--repo", action="append", default=[])
    parser.add_argument("--max-queries", type=int)
    parser.add_argument("--provider", default="minilm", help="embedding provider [minilm]")
    parser.add_argument(
        "--home", default=str(Path.home() / ".cache" / "wherein-bench"), help="WHEREIN_HOME"
    )
    parser.add_argument("--ablate", action="store_true", help="also run with each signal off")
    parser.add_argument(
        "--tiers",
        action="store_true",
        help="also rank with each vector tier alone, and with none (the lexical index alone)",
    )
    parser.add_argument("--no-baselines", action="store_true", help="skip bm25 and ripgrep")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--out", help="JSON report path")
    parser.add_argument("--expansion", action="store_true", help="also run with expansion on")
    parser.add_argument("--rerank", action="store_true", help="also run with reranking on")
    parser.add_argument("--chat-model", help="model for the steps [expansion/rerank.model]")
    parser.add_argument("--chat-api-base", help="chat server [expansion/rerank.api_base]")
    args = parser.parse_args(argv)

    os.environ["WHEREIN_HOME"] = args.home
    scorer = _load_scorer(args.bench_dir)
    queries = []
    files = {"semble": "semble_python.jsonl", "commits": "queries_visible.jsonl"}
    for which, name in files.items():
        if args.set in (which, "all"):
            rows = scorer.load_queries(which, args.bench_dir / name)
            rows = [q for q in rows if scorer.repo_matches(q.repo, args.repo)]
            if args.max_queries:
                per_repo = defaultdict(list)
                for q in rows:
                    per_repo[q.repo].append(q)
                rows = [q for group in per_repo.values() for q in group[: args.max_queries]]
            queries += rows

    retrievers = [] if args.no_baselines else [scorer.Ripgrep(), scorer.Bm25Chunks()]
    retrievers.append(InProcessWherein(scorer, "wherein", args.provider, SIGNALS))
    for name, steps in _step_variants(args):
        retrievers.append(InProcessWherein(scorer, name, args.provider, SIGNALS, steps))
    if args.tiers:
        for name, tiers in (("fast", {FAST.name}), ("full", {FULL.name}), ("lexical", set())):
            retrievers.append(
                InProcessWherein(scorer, name, args.provider, SIGNALS, tiers=frozenset(tiers))
            )
    if args.ablate:
        retrievers.append(InProcessWherein(scorer, "nosignal", args.provider, frozenset()))
        for signal in sorted(SIGNALS):
            retrievers.append(
                InProcessWherein(scorer, f"-{signal}", args.provider, SIGNALS - {signal})
            )
    corpus_root = os.path.abspath(args.corpus_root)
    namespace = argparse.Namespace(corpus_root=corpus_root, k=args.k, cleanup=False)
    cache = scorer.FileCache()
    report = {"config": vars(args) | {"bench_dir": str(args.bench_dir)}, "results": {}}
    for retriever in retrievers:
        print(f"running {retriever.name} on {len(queries)} queries", file=sys.stderr)
        report["results"][retriever.name] = scorer.evaluate(retriever, queries, namespace, cache)
    scorer.print_tables(report, [r.name for r in retrievers], args.k)
    for retriever in retrievers:
        outcomes = getattr(retriever, "outcomes", None)
        if outcomes:
            report["results"][retriever.name]["step_outcomes"] = dict(outcomes)
            counts = ", ".join(f"{key}: {n}" for key, n in sorted(outcomes.items()))
            print(f"{retriever.name} model steps: {counts}", file=sys.stderr)
    if args.out:
        import json

        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        print(f"\nJSON: {args.out}")
    return 0


def _step_variants(args) -> list[tuple[str, dict[str, str]]]:
    """Retrievers with model steps on, as WHEREIN_* variables: one per flag, and both."""
    chosen = [step for step in ("expansion", "rerank") if getattr(args, step)]
    variants = [[step] for step in chosen] + ([chosen] if len(chosen) == 2 else [])
    out = []
    for steps in variants:
        env = {}
        for step in steps:
            prefix = f"WHEREIN_{step.upper()}_"
            env[prefix + "ENABLED"] = "true"
            if args.chat_model:
                env[prefix + "MODEL"] = args.chat_model
            if args.chat_api_base:
                env[prefix + "API_BASE"] = args.chat_api_base
        out.append(("+" + "+".join(steps), env))
    return out


if __name__ == "__main__":
    sys.exit(main())
