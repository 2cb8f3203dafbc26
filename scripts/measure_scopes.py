"""Measure how well "weak in scope" statistics tell a right focus from a wrong one.

A workspace is built from real libraries copied out of site-packages, one top-level folder
each; every library is a scope. Queries are the first sentences of function docstrings
(sampled with a fixed seed, as CodeSearchNet does). Each query is judged twice: focused on its
own library (the notice should stay quiet) and on another library (the notice should fire).
For every candidate statistic the script prints the ROC AUC and the threshold with the best
balanced accuracy, chosen on half the libraries and checked on the other half.

    python scripts/measure_scopes.py --provider minilm --packages httpx,h11,pathspec
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

DEFAULT_PACKAGES = "httpx,httpcore,h11,pathspec,tomlkit,pluggy,jwt,dotenv,click,attr"
QUERIES_PER_PACKAGE = 12
MIN_QUERY_WORDS = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", default=DEFAULT_PACKAGES)
    parser.add_argument("--provider", default="minilm")
    parser.add_argument("--work", default="/tmp/wherein-scopes")
    parser.add_argument("--out", help="write the per-query statistics as JSON here")
    args = parser.parse_args(argv)

    work = Path(args.work) / args.provider
    workspace = work / "ws"
    os.environ["WHEREIN_HOME"] = str(work / "home")
    os.environ["WHEREIN_EMBEDDING_PROVIDER"] = args.provider
    packages = args.packages.split(",")
    _copy_packages(workspace, packages)

    from wherein.config import load_settings
    from wherein.embedding.registry import create_embedder
    from wherein.index.location import INDEX_FILE_NAME, index_dir
    from wherein.index.store import open_store
    from wherein.indexing import build_index
    from wherein.scope import scope_gap

    settings = load_settings(workspace)
    started = time.monotonic()
    summary = build_index(workspace, settings)
    print(f"index: {summary.line()} ({time.monotonic() - started:.0f} s wall)", file=sys.stderr)
    embedder = create_embedder(settings)
    store = open_store(index_dir(workspace) / INDEX_FILE_NAME)
    ids, matrix = store.vectors()
    paths = store.chunk_paths()
    owner = np.array([paths[int(i)].split("/", 1)[0] for i in ids])
    rng = random.Random(0)
    rows = []
    for package in packages:
        others = [p for p in packages if p != package]
        for query in _docstring_queries(workspace / package, rng):
            vector = embedder.embed([query])[0]
            sims = matrix @ vector
            wrong = rng.choice(others)
            for focus, label in ((package, 0), (wrong, 1)):
                stats = _statistics(sims, owner == focus)
                stats["scope_gap"] = scope_gap(sims, owner == focus)
                rows.append(
                    {"query": query, "package": package, "focus": focus, "weak": label, **stats}
                )
    store.close()
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    _report(rows, packages)
    return 0


def _statistics(sims: np.ndarray, inside: np.ndarray) -> dict[str, float]:
    """Candidate "how weak is the best match in scope" statistics; larger or smaller may mean
    weaker, the report finds out which."""
    own, out = sims[inside], sims[~inside]
    best, best_out = float(own.max()), float(out.max())
    std = float(own.std()) or 1e-9
    mad = float(np.median(np.abs(own - np.median(own)))) * 1.4826 or 1e-9
    above = int((out > best).sum())
    return {
        "raw_cosine": best,
        "z_own": (best - float(own.mean())) / std,
        "z_own_robust": (best - float(np.median(own))) / mad,
        "gap_z": (best_out - best) / std,
        "out_above": above / len(out),
        "log_n_above": float(np.log1p(above)),
        "n_scope": float(len(own)),
    }


def _copy_packages(workspace: Path, packages: list[str]) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    for package in packages:
        target = workspace / package
        if not target.exists():
            shutil.copytree(
                site / package, target, ignore=shutil.ignore_patterns("__pycache__", "*.so")
            )


def _docstring_queries(folder: Path, rng: random.Random) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node)
                if doc:
                    first = " ".join(doc.strip().split("\n\n")[0].split())
                    first = first.split(". ")[0].rstrip(".")
                    if len(first.split()) >= MIN_QUERY_WORDS:
                        found.append(first)
    found = sorted(set(found))
    rng.shuffle(found)
    return found[:QUERIES_PER_PACKAGE]


def _auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """P(score of a weak case > score of a right case), ties counted half."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + ties / 2)


def _best_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    best = (-1.0, 0.0)
    for t in np.unique(scores):
        fired = scores >= t
        tpr = fired[labels == 1].mean()
        tnr = (~fired)[labels == 0].mean()
        if (tpr + tnr) / 2 > best[0]:
            best = ((tpr + tnr) / 2, float(t))
    return best[1], best[0]


def _report(rows: list[dict], packages: list[str]) -> None:
    labels = np.array([r["weak"] for r in rows])
    half = set(packages[::2])
    train = np.array([r["package"] in half for r in rows])
    names = [k for k in rows[0] if k not in ("query", "package", "focus", "weak")]
    print(f"{len(rows) // 2} queries over {len(packages)} libraries")
    print(
        f"{'statistic':<14}{'AUC':>6}  {'threshold':>10}  {'train bal.acc':>13}  "
        f"{'test: notice on right scope':>27}  {'test: notice on wrong scope':>27}"
    )
    for name in names:
        # Statistics where a larger value means "weaker" are used as is; others flipped.
        scores = np.array([r[name] for r in rows], dtype=float)
        sign = 1.0 if _auc(scores, labels) >= 0.5 else -1.0
        scores = sign * scores
        threshold, train_acc = _best_threshold(scores[train], labels[train])
        fired = scores[~train] >= threshold
        test_labels = labels[~train]
        false_notice = fired[test_labels == 0].mean()
        caught = fired[test_labels == 1].mean()
        shown = sign * threshold
        print(
            f"{name:<14}{_auc(scores, labels):>6.3f}  {('>=' if sign > 0 else '<=')}"
            f"{shown:>8.3f}  {train_acc:>13.3f}  {false_notice:>27.1%}  {caught:>27.1%}"
        )
    from wherein.scope import WEAK_GAP

    gaps = np.array([r["scope_gap"] for r in rows], dtype=float)
    fired = gaps >= WEAK_GAP
    print(
        f"the rule, scope_gap >= WEAK_GAP ({WEAK_GAP}), all {len(rows) // 2} queries: notice "
        f"on the right scope {fired[labels == 0].mean():.1%}, on a wrong scope "
        f"{fired[labels == 1].mean():.1%}"
    )


if __name__ == "__main__":
    sys.exit(main())
