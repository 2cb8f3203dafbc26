"""Index real library trees as extra source roots of a small workspace and report what it costs.

Reports per root: files walked and indexed, chunks, walk time, nested node_modules /
site-packages folders on disk against indexed paths below them (must be 0); then, for each
query, the top results with their excerpt size against the size of the whole files.

    WHEREIN_EMBEDDING_PROVIDER=static python scripts/measure_roots.py \\
        --root /tmp/venv/lib/python3.11/site-packages --root /usr/lib/node_modules/npm \\
        --query "convert a gitignore wildcard pattern into a regular expression"
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

NESTED = ("node_modules", "site-packages", "dist-packages")
APP = {
    "app/main.py": "from pathspec import PathSpec\n\n\ndef ignored(lines, path):\n"
    "    return PathSpec.from_lines('gitwildmatch', lines).match_file(path)\n",
    "README.md": "# app\n\nA small project written against the libraries of its venv.\n",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", action="append", required=True, help="a library folder")
    parser.add_argument("--query", action="append", default=[])
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--focused", action="store_true", help="also focused on app/")
    parser.add_argument("--work", help="a folder to keep the workspace and index in (resumable)")
    args = parser.parse_args(argv)

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="wherein-roots-"))
    os.environ.setdefault("WHEREIN_HOME", str(work / "home"))
    workspace = work / "ws"
    for rel, text in APP.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    os.environ["WHEREIN_SCOPE_SOURCE_ROOTS"] = ",".join(args.root)

    from wherein.config import load_settings
    from wherein.index.status import read_status
    from wherein.indexing import build_index
    from wherein.roots import plan_roots
    from wherein.search import run_search
    from wherein.workspace import WalkReport, walk_root

    settings = load_settings(workspace)
    plan = plan_roots(workspace, settings["scope.source_roots"])
    for problem in plan.problems:
        print(f"problem: {problem}")
    report: dict = {"provider": settings["embedding.provider"], "roots": []}
    for root in plan.extra:
        started = time.monotonic()
        walked = list(walk_root(root, settings["walk.max_file_bytes"], WalkReport()))
        walk_s = time.monotonic() - started
        on_disk = _nested_on_disk(root.path)
        report["roots"].append(
            {
                "label": root.label,
                "path": str(root.path),
                "files_walked": len(walked),
                "walk_s": round(walk_s, 2),
                "nested_dirs_on_disk": on_disk,
            }
        )
    started = time.monotonic()
    summary = build_index(workspace, settings)
    report["index"] = {"line": summary.line(), "wall_s": round(time.monotonic() - started, 1)}
    status = read_status(workspace, roots=plan.extra).to_json()
    counts = {r["label"]: r for r in status["roots"]}
    import sqlite3

    conn = sqlite3.connect(f"file:{status['index_path']}?mode=ro", uri=True)
    paths = [row[0] for row in conn.execute("SELECT path FROM files")]
    conn.close()
    for item in report["roots"]:
        item["files_indexed"] = counts[item["label"]]["files"]
        item["chunks"] = counts[item["label"]]["chunks"]
        item["indexed_under_nested"] = sum(
            1
            for p in paths
            if p.startswith(item["label"] + "/") and any(n in p.split("/")[1:-1] for n in NESTED)
        )
    report["queries"] = []
    runs = [(q, None) for q in args.query] + [(q, "app") for q in args.query if args.focused]
    for query, focus in runs:
        started = time.monotonic()
        result = run_search(
            query, workspace=workspace, settings=settings, limit=args.limit, focus=focus
        )
        seconds = time.monotonic() - started
        report["queries"].append(
            {
                "query": query,
                "focus": focus,
                "seconds": round(seconds, 2),
                "warnings": result.warnings,
                "returned_chars": result.returned_chars,
                "whole_files_chars": result.source_chars,
                "top": [
                    {
                        "path": h.path,
                        "lines": f"{h.start_line}-{h.end_line}",
                        "symbols": list(h.symbols[:3]),
                        "excerpt_chars": len(h.excerpt),
                    }
                    for h in result.hits
                ],
            }
        )
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


def _nested_on_disk(root: Path) -> int:
    """Folders named like a package store anywhere below the root (not the root itself)."""
    count = 0
    for _dirpath, dirnames, _files in os.walk(root):
        for name in list(dirnames):
            if name in NESTED:
                count += 1
                dirnames.remove(name)
    return count


if __name__ == "__main__":
    sys.exit(main())
