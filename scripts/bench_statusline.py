"""Time `wherein statusline` as Claude Code runs it, against a bare interpreter in the same run.

    python scripts/bench_statusline.py [--responses 3000] [--usage-rows 100000] [--runs 21]

Builds, in a temporary folder, what a long session looks like from the status line: a
transcript of N responses (each streamed as two lines, a tool result of ~4 KB between them,
a recall tool_use every tenth), a subagent transcript, and a usage ledger of M rows from 2,000
sessions with this session's searches among the last. Then runs, each in a fresh process fed
Claude Code's status JSON on stdin:

- `python -c pass` and `python -c "import wherein.cli"`: the same-run baselines (what any
  Python command, and any wherein command, costs before doing anything);
- `first refresh`: no state yet, so the transcript is read from its start (4 MiB a refresh at
  most: a longer one takes more than one refresh, each timed);
- `refresh after a response`: one response appended since the last refresh (the usual case);
- `refresh, nothing new`.

Prints one JSON object: median and fastest wall milliseconds and median CPU milliseconds
(user + system of the child) of each, and the line printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SESSION = "5f0c3a52-8d1e-4c57-9a6b-0d2f7e9c1b44"
STATUSLINE = "import sys; from wherein.cli import main; sys.exit(main())"


def _response(n: int, when: str, out: int, recall: bool) -> dict:
    content = [{"type": "text", "text": "x" * 200}]
    if recall:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{n}",
                "name": "mcp__wherein__recall",
                "input": {"query": "where are retries handled"},
            }
        )
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/me/app",
        "sessionId": SESSION,
        "version": "2.1.200",
        "gitBranch": "main",
        "type": "assistant",
        "requestId": f"req_{n}",
        "timestamp": when,
        "uuid": f"u{n}-{out}",
        "message": {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": content,
            "usage": {
                "input_tokens": 5,
                "cache_creation_input_tokens": 1200,
                "cache_read_input_tokens": 40_000 + 30 * n,
                "output_tokens": out,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": 1200,
                },
            },
        },
    }


def _tool_result(n: int, rng: random.Random) -> dict:
    return {
        "type": "user",
        "sessionId": SESSION,
        "cwd": "/home/me/app",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{n}",
                    "content": "y" * rng.randint(2000, 6000),
                }
            ],
        },
        "timestamp": "2026-11-02T10:00:00Z",
    }


def build(folder: Path, responses: int, usage_rows: int) -> tuple[Path, bytes]:
    rng = random.Random(7)
    transcript = folder / ".claude" / "projects" / "-home-me-app" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    with transcript.open("w") as handle:
        for n in range(responses):
            when = f"2026-11-02T{10 + n // 3600 % 14:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"
            for out in (1, rng.randint(50, 900)):  # a placeholder copy, then the full one
                handle.write(json.dumps(_response(n, when, out, n % 10 == 0)) + "\n")
            handle.write(json.dumps(_tool_result(n, rng)) + "\n")
    subagents = transcript.with_suffix("") / "subagents"
    subagents.mkdir(parents=True)
    with (subagents / "agent-1.jsonl").open("w") as handle:
        for n in range(40):
            handle.write(json.dumps(_response(10_000 + n, "2026-11-02T11:00:00Z", 80, False)))
            handle.write("\n")
    usage = folder / "wherein-home" / "usage.jsonl"
    usage.parent.mkdir(parents=True)
    with usage.open("w") as handle:
        for n in range(usage_rows):
            mine = n >= usage_rows - 400 and n % 10 == 0
            session = SESSION if mine else f"other-{rng.randrange(2000)}"
            row = {
                "time": "2026-11-02T10:00:00.000+00:00",
                "session": session,
                "workspace": "/home/me/app",
                "action": "search",
                "results": 8,
                "returned_chars": rng.randint(2000, 9000),
                "source_chars": rng.randint(40_000, 400_000),
                "paths_hash": "ab" * 32,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    stdin = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/home/me/app",
        "workspace": {"current_dir": "/home/me/app", "project_dir": "/home/me/app"},
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
        "version": "2.1.200",
        "cost": {"total_cost_usd": 1.0},
    }
    return transcript, json.dumps(stdin).encode()


def run(command: list[str], stdin: bytes, env: dict) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall * 1000, cpu * 1000, done.stdout.decode("utf-8").strip()


def figures(samples: list[tuple[float, float, str]]) -> dict:
    return {
        "wall_ms_median": round(statistics.median(s[0] for s in samples), 1),
        "wall_ms_fastest": round(min(s[0] for s in samples), 1),
        "cpu_ms_median": round(statistics.median(s[1] for s in samples), 1),
        "runs": len(samples),
        "line": samples[-1][2],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_statusline.py", description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=int, default=3000)
    parser.add_argument("--usage-rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="wherein-bench-statusline-"))
    try:
        transcript, stdin = build(folder, args.responses, args.usage_rows)
        env = dict(
            os.environ,
            HOME=str(folder),
            WHEREIN_HOME=str(folder / "wherein-home"),
            PYTHONPATH=str(REPO),
            PYTHONIOENCODING="utf-8",
        )
        env.pop("CLAUDE_CONFIG_DIR", None)
        python, statusline = [sys.executable], [sys.executable, "-c", STATUSLINE, "statusline"]
        state = folder / "wherein-home" / "statusline"
        report: dict = {
            "transcript_bytes": transcript.stat().st_size,
            "usage_bytes": (folder / "wherein-home" / "usage.jsonl").stat().st_size,
        }
        report["python -c pass"] = figures(
            [run([*python, "-c", "pass"], b"", env) for _ in range(args.runs)]
        )
        report["python -c 'import wherein.cli'"] = figures(
            [run([*python, "-c", "import wherein.cli"], b"", env) for _ in range(args.runs)]
        )
        first = []
        for _ in range(20):  # until caught up: 4 MiB of transcript a refresh
            first.append(run(statusline, stdin, env))
            if "≥" not in first[-1][2]:
                break
        report["first refresh (each, until caught up)"] = [
            {"wall_ms": round(w, 1), "cpu_ms": round(c, 1), "line": line} for w, c, line in first
        ]
        grown = []
        for n in range(args.runs):
            with transcript.open("a") as handle:
                handle.write(json.dumps(_response(50_000 + n, "2026-11-02T23:00:00Z", 300, False)))
                handle.write("\n")
            grown.append(run(statusline, stdin, env))
        report["refresh after a response"] = figures(grown)
        report["refresh, nothing new"] = figures(
            [run(statusline, stdin, env) for _ in range(args.runs)]
        )
        report["state_bytes"] = sum(p.stat().st_size for p in state.iterdir())
        print(json.dumps(report, indent=1, ensure_ascii=False))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
