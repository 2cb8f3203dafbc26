"""The first MCP `recall` of a new session on a never-indexed folder, against a fresh CLI search.

Per run, with a fresh `$WHEREIN_HOME` each time and a copy of the folder (nothing is
written into it):

- `recall`: `wherein serve` started over stdio by the MCP SDK's own client, the wall time
  from sending the first `recall` search to its answer (the server's start and the
  `initialize` exchange excluded: a host starts the server once a session), and the same
  from start to answer;
- `cli`: a fresh `wherein search` of the same query, the baseline of the same run.

Both run beside the folder, naming it, not inside it: `python -m` puts the working folder
first on `sys.path`, and in a copy of this repository they would import its uncompiled
`wherein` instead of the code under test. Medians of --runs, alternated. The agent's
server runs its index jobs in threads, so its chunking workers come from the fork server
it starts first, where the CLI forks them itself (`wherein.index.prepare.start_method`):
the difference is what that costs.

    python scripts/bench_first_recall.py --corpus-root /tmp/bench-corpus --sdist flask [--self]
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
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT.parent / "shared" / "bench"
QUERY = "where is the request routed to its handler"


def _recall(workspace: Path, home: Path) -> tuple[float, float, int]:
    """(seconds to the first answer, seconds from start, results) of one new MCP session."""
    env = {**os.environ, "WHEREIN_HOME": str(home)}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wherein.cli", "serve", "--workspace", str(workspace)],
        env=env,
        cwd=str(workspace.parent),
    )

    async def session() -> tuple[float, float, int]:
        started = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            asked = time.perf_counter()
            answer = await client.call_tool("recall", {"query": QUERY, "limit": 8})
            done = time.perf_counter()
        results = (answer.structured_content or {}).get("results", [])
        return done - asked, done - started, len(results)

    return anyio.run(session)


def _cli(workspace: Path, home: Path) -> float:
    env = {**os.environ, "WHEREIN_HOME": str(home)}
    command = [sys.executable, "-m", "wherein.cli", "search", QUERY, "--json"]
    command += ["--workspace", str(workspace)]
    started = time.perf_counter()
    subprocess.run(command, cwd=workspace.parent, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def _folders(args) -> list[tuple[str, Path]]:
    rows = [json.loads(line) for line in (args.bench_dir / "semble_python.jsonl").open()]
    corpus_dirs = {row["repo"]: row["corpus_dir"] for row in rows}
    folders = [(f"{name} sdist", args.corpus_root / corpus_dirs[name]) for name in args.sdist]
    if args.self:
        folders.append(("wherein", ROOT))
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus-root", type=Path, default=Path("/tmp/bench-corpus"))
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    parser.add_argument("--sdist", action="append", default=[], help="a semble repo's sdist")
    parser.add_argument("--self", action="store_true", help="this repository's own tree")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    for name, folder in _folders(args):
        answer, whole, cli = [], [], []
        found = 0
        with tempfile.TemporaryDirectory(prefix="wherein-recall-") as scratch:
            work = Path(scratch) / "work"
            ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__")
            shutil.copytree(folder, work, symlinks=True, ignore=ignore)
            for run in range(args.runs):
                seconds, total, found = _recall(work, Path(scratch) / f"mcp-{run}")
                answer.append(seconds)
                whole.append(total)
                cli.append(_cli(work, Path(scratch) / f"cli-{run}"))
        print(
            f"{name}: first recall {statistics.median(answer):.2f} s "
            f"({statistics.median(whole):.2f} s from the server's start, {found} results); "
            f"fresh CLI search {statistics.median(cli):.2f} s; "
            f"ratio recall / cli {statistics.median(answer) / statistics.median(cli):.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
