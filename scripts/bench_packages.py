"""Package roots: what a first and a second workspace pay to add the same distributions, and
how well library questions are answered through them.

1. Two fresh workspaces add the same packages (default: httpx, rich, pathspec, tomlkit, mcp)
   from one environment's site-packages: wall time of each `roots add`, chunks each embedded,
   then the second's first search (which verifies its files against the shared indexes).
2. Resolving the packages by reading their `*.dist-info` (what wherein does) against asking a
   subprocess of the environment's python through `importlib.metadata`.
3. `scripts/package_questions.toml`: R@5 (a gold file among the top 5 result files) with the
   packages as shared roots, against the whole site-packages as one `scope.source_roots` root,
   in the same run (`--skip-whole` leaves the second out: it indexes ~77,000 chunks).

    python scripts/bench_packages.py --python /work/main/.venv/bin/python --provider static
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = ("httpx", "rich", "pathspec", "tomlkit", "mcp")
QUESTIONS = Path(__file__).resolve().parent / "package_questions.toml"
APP = "import httpx\nimport rich\nimport pathspec\nimport tomlkit\nimport mcp\n"
_ASK = (
    "import importlib.metadata as m, sys\n"
    "for name in sys.argv[1:]:\n"
    "    d = m.distribution(name)\n"
    "    print(name, d.version, len(d.files or []))\n"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="the environment's python")
    parser.add_argument("--provider", default="static", help="embedding.provider for the run")
    parser.add_argument("--package", action="append", help="a distribution (default: five)")
    parser.add_argument("--skip-whole", action="store_true", help="no whole-site-packages root")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    names = list(args.package or PACKAGES)
    work = Path(tempfile.mkdtemp(prefix="wherein-packages-"))
    os.environ.update(
        {
            "WHEREIN_HOME": str(work / "home"),
            "XDG_CONFIG_HOME": str(work / "config"),
            "WHEREIN_EMBEDDING_PROVIDER": args.provider,
            "WHEREIN_SCOPE_PYTHON": args.python,
        }
    )
    os.environ.pop("VIRTUAL_ENV", None)
    report: dict = {"provider": args.provider, "packages": names}
    first, second = (_workspace(work / name) for name in ("first", "second"))
    report["first"] = _add(first, names)
    report["second"] = _add(second, names)
    report["second_first_search_s"] = _timed_search(second, "parse a URL")
    report["second_warm_search_s"] = _timed_search(second, "parse a URL")
    report["resolve"] = _resolve_costs(first, names, args.python)
    report["quality"] = _quality(work, first, args.skip_whole)
    shutil.rmtree(work, ignore_errors=True)  # the whole site-packages' index is over 1 GB
    _print(report)
    if args.json:
        print(json.dumps(report, indent=1))
    return 0


def _workspace(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "app.py").write_text(APP)
    return folder.resolve()


def _add(workspace: Path, names: list[str]) -> dict:
    from wherein.packages.adding import add_packages

    started = time.perf_counter()
    added = add_packages(workspace, names)
    seconds = time.perf_counter() - started
    return {
        "wall_s": round(seconds, 3),
        "built": [b.package.label for b in added.builds if b.built],
        "chunks_embedded": sum(b.chunks_embedded for b in added.builds),
        "files": sum(len(b.package.files) for b in added.builds),
    }


def _timed_search(workspace: Path, query: str) -> float:
    from wherein.config import load_settings
    from wherein.search import run_search

    started = time.perf_counter()
    run_search(query, workspace=workspace, settings=load_settings(workspace))
    return round(time.perf_counter() - started, 3)


def _resolve_costs(workspace: Path, names: list[str], python: str) -> dict:
    from wherein.packages.resolve import resolve_package

    started = time.perf_counter()
    for name in names:
        resolve_package(workspace, name, python=python, inside_only=False)
    read = time.perf_counter() - started
    started = time.perf_counter()
    for name in names:  # one interpreter per lookup, as a resolve at search time would need
        subprocess.run([python, "-I", "-c", _ASK, name], check=True, capture_output=True)
    asked = time.perf_counter() - started
    return {"read_dist_info_ms": round(read * 1000, 1), "subprocess_ms": round(asked * 1000, 1)}


def _quality(work: Path, packaged: Path, skip_whole: bool) -> dict:
    import tomlkit

    from wherein.config import load_settings
    from wherein.indexing import build_index
    from wherein.packages.environment import python_environments

    questions = tomlkit.loads(QUESTIONS.read_text()).unwrap()["question"]
    result = {"questions": len(questions), "shared_roots": _recall(packaged, questions)}
    if skip_whole:
        return result
    found, _ = python_environments(work, os.environ["WHEREIN_SCOPE_PYTHON"], inside_only=False)
    site = found[0].site_packages[0]  # the one the packages came from
    whole = _workspace(work / "whole")
    os.environ["WHEREIN_SCOPE_PACKAGES"] = ""  # this one searches the site-packages as a folder
    os.environ["WHEREIN_SCOPE_SOURCE_ROOTS"] = f"site={site}"
    try:
        started = time.perf_counter()
        summary = build_index(whole, load_settings(whole))
        result["whole_index_s"] = round(time.perf_counter() - started, 1)
        result["whole_chunks"] = summary.report.chunks_written
        result["whole_site_packages"] = _recall(whole, questions)
    finally:
        del os.environ["WHEREIN_SCOPE_SOURCE_ROOTS"], os.environ["WHEREIN_SCOPE_PACKAGES"]
    return result


def _recall(workspace: Path, questions: list[dict]) -> dict:
    """R@5 over the questions: a gold file among the first five distinct result files."""
    from wherein.config import load_settings
    from wherein.search import run_search

    settings = load_settings(workspace)
    answered, misses = 0, []
    for question in questions:
        found = run_search(question["query"], workspace=workspace, settings=settings, limit=10)
        files: list[str] = []
        for hit in found.hits:
            rel = hit.path.split("/", 1)[1] if "/" in hit.path else hit.path
            if rel not in files:
                files.append(rel)
        if set(files[:5]) & set(question["gold"]):
            answered += 1
        else:
            misses.append(question["query"])
    return {"r_at_5": round(answered / len(questions), 3), "answered": answered, "misses": misses}


def _print(report: dict) -> None:
    for which in ("first", "second"):
        r = report[which]
        print(
            f"{which} workspace adds {len(report['packages'])} packages: {r['wall_s']:.2f} s, "
            f"{r['chunks_embedded']} chunks embedded, built {len(r['built'])}, "
            f"{r['files']} files"
        )
    print(
        f"second workspace's first search {report['second_first_search_s']:.2f} s "
        f"(opens the shared indexes), then {report['second_warm_search_s']:.2f} s"
    )
    r = report["resolve"]
    print(
        f"resolve {len(report['packages'])} packages: dist-info read {r['read_dist_info_ms']} ms, "
        f"a subprocess per package {r['subprocess_ms']} ms"
    )
    q = report["quality"]
    print(f"R@5, {q['questions']} questions, shared package roots: {q['shared_roots']['r_at_5']}")
    if "whole_site_packages" in q:
        print(
            f"R@5, whole site-packages as one root ({q['whole_chunks']} chunks, indexed in "
            f"{q['whole_index_s']} s): {q['whole_site_packages']['r_at_5']}"
        )


if __name__ == "__main__":
    sys.exit(main())
