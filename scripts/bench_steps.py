"""Latency the model steps add to a search, against the loopback test chat server.

Indexes a corpus once (the wherein package itself by default), then runs each query with
expansion and rerank off, each on alone, and both on, interleaved per query so drift hits every
mode alike. The added latency of a mode is its time minus the same query's time with both off;
p50 and p95 are over the queries. The server answers at once (or --delay-ms late), so this is
wherein's own cost of a step: the thread, the guard, HTTP, parsing, and ranking the phrasings.
A real model adds its thinking time on top.

Then the worst case: the server accepts and never answers (wedged), each step alone with
--wedge-timeout-s as its deadline. The first search's added latency should equal the deadline
plus a small margin (printed); with a deadline of a second or more, that wait rests the model
(`wherein.endpoint.rest`), so the searches after it should add next to nothing.

    python scripts/bench_steps.py --queries 100
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wherein.config import load_settings
from wherein.embedding.registry import create_embedder
from wherein.endpoint import rest
from wherein.indexing import build_index
from wherein.ranking.chat import rest_key
from wherein.search import run_search

REPO_ROOT = Path(__file__).resolve().parents[1]
CHAT_MODEL = "tiny-chat"  # the model tests.ranking.chat_server knows
MODES = {
    "off": (),
    "expansion": ("expansion",),
    "rerank": ("rerank",),
    "both": ("expansion", "rerank"),
}
_DEF = re.compile(r"^\s*(?:def|class)\s+([A-Za-z_]\w*)", re.MULTILINE)
_DOC = re.compile(r'^\s*"""([A-Z][^"\n]{15,90}?)[."]', re.MULTILINE)


def _queries(corpus: Path, count: int, seed: int) -> list[str]:
    """Identifiers and docstring first lines from the corpus: the two kinds of query people ask."""
    names: set[str] = set()
    phrases: set[str] = set()
    for path in sorted(corpus.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        names.update(n for n in _DEF.findall(text) if not n.startswith("_"))
        phrases.update(p.strip() for p in _DOC.findall(text))
    rng = random.Random(seed)
    half = count // 2
    picked = rng.sample(sorted(names), min(half, len(names)))
    picked += rng.sample(sorted(phrases), min(count - len(picked), len(phrases)))
    rng.shuffle(picked)
    return picked


class _ChatServer:
    """tests.ranking.chat_server in its own process, as a real model server would be."""

    def __init__(self, *flags: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.ranking.chat_server", *flags],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline() if self.process.stdout else ""
        if not line.startswith("PORT "):
            self.close()
            raise SystemExit(f"The chat server did not start (said {line!r}).")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _settings(corpus: Path, url: str, steps: tuple[str, ...], timeout_s: float):
    environ = dict(os.environ)
    for step in steps:
        prefix = f"WHEREIN_{step.upper()}_"
        environ.update(
            {
                prefix + "ENABLED": "true",
                prefix + "MODEL": CHAT_MODEL,
                prefix + "API_BASE": url,
                prefix + "TIMEOUT_S": str(timeout_s),
            }
        )
    return load_settings(corpus, environ=environ)


def _search(query: str, corpus: Path, settings, embedder) -> tuple[float, object]:
    started = time.perf_counter()
    result = run_search(
        query, workspace=corpus, settings=settings, embedder=embedder, cold_budget_s=0.0
    )
    return (time.perf_counter() - started) * 1000.0, result


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO_ROOT / "wherein")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--provider", default="minilm", help="embedding provider [minilm]")
    parser.add_argument("--timeout-s", type=float, default=5.0, help="step deadline [5]")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="server answers this late")
    parser.add_argument("--wedge-queries", type=int, default=10)
    parser.add_argument("--wedge-timeout-s", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--home", help="WHEREIN_HOME to keep the index between runs [a temp dir]")
    args = parser.parse_args(argv)

    corpus = args.corpus.resolve()
    home = tempfile.TemporaryDirectory(prefix="wherein-bench-steps-")
    os.environ["WHEREIN_HOME"] = args.home or home.name
    os.environ["WHEREIN_EMBEDDING_PROVIDER"] = args.provider
    base = load_settings(corpus)
    build_index(corpus, base)
    embedder = create_embedder(base)
    queries = _queries(corpus, args.queries, args.seed)
    print(
        f"corpus {corpus} ({args.provider}), {len(queries)} queries, step deadline "
        f"{args.timeout_s:g} s, server delay {args.delay_ms:g} ms",
        file=sys.stderr,
    )

    good = _ChatServer("--delay-ms", str(args.delay_ms))
    try:
        settings = {
            mode: _settings(corpus, good.url, steps, args.timeout_s)
            for mode, steps in MODES.items()
        }
        for mode in MODES:  # warm: first connections, first embeddings
            _search(queries[0], corpus, settings[mode], embedder)
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        step_ms: dict[str, list[float]] = {"expansion": [], "rerank": []}
        outcomes: dict[str, dict[str, int]] = {"expansion": {}, "rerank": {}}
        for query in queries:
            for mode, steps in MODES.items():
                ms, result = _search(query, corpus, settings[mode], embedder)
                times[mode].append(ms)
                for step in steps:
                    status = getattr(result, step)
                    outcomes[step][status.status] = outcomes[step].get(status.status, 0) + 1
                    if mode == step:
                        step_ms[step].append(status.ms)
    finally:
        good.close()

    print("\nmode        search p50  p95 ms   added p50  p95 ms   step p50  p95 ms")
    for mode in MODES:
        added = [t - o for t, o in zip(times[mode], times["off"], strict=True)]
        row = f"{mode:<11} {_pct(times[mode], 0.5):>9.1f} {_pct(times[mode], 0.95):>7.1f}"
        if mode != "off":
            row += f"   {_pct(added, 0.5):>8.1f} {_pct(added, 0.95):>7.1f}"
        if mode in step_ms:
            row += f"   {_pct(step_ms[mode], 0.5):>7.1f} {_pct(step_ms[mode], 0.95):>7.1f}"
        print(row)
    print(f"outcomes: {outcomes}")

    wedged = _ChatServer("--wedge")
    try:
        sample = queries[: args.wedge_queries]
        print(f"\nwedged server, deadline {args.wedge_timeout_s:g} s, {len(sample)} queries")
        print("step        first: added  gave up ms   after it: added p50  max ms   statuses")
        off = _settings(corpus, wedged.url, (), args.wedge_timeout_s)
        for step in ("expansion", "rerank"):
            on = _settings(corpus, wedged.url, (step,), args.wedge_timeout_s)
            rest.note_answer(rest_key(on, step))  # the other step's miss rested this model too
            added, gave_up, statuses = [], [], set()
            for query in sample:
                base_ms, _ = _search(query, corpus, off, embedder)
                ms, result = _search(query, corpus, on, embedder)
                added.append(ms - base_ms)
                gave_up.append(getattr(result, step).ms)
                statuses.add(getattr(result, step).status)
            after = added[1:] or [0.0]
            print(
                f"{step:<11} {added[0]:>12.1f} {gave_up[0]:>12.1f}   "
                f"{_pct(after, 0.5):>19.1f} {max(after):>7.1f}   {sorted(statuses)}"
            )
        print(
            "(gave up: the step's own clock, request start to giving up; expansion starts "
            "before the index refresh, so less of its wait is added; after it: the searches "
            "the first one's miss rested the model for)"
        )
    finally:
        wedged.close()
        home.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
