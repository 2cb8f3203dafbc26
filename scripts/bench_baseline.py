"""Time `wherein baseline` reading a large synthetic ledger, against a same-run baseline.

    python scripts/bench_baseline.py [--lines 1000000] [--dir DIR] [--format claude|generic]
        [--repeat 1]

Writes the ledger with scripts/make_ledger.py into DIR (default: a folder under the system
temp directory, reused on later runs), then times, each in a fresh child process:

- `json.loads`: the same-run baseline, plain `json.loads` of every line of every file and
  nothing else (what reading cost before any of wherein's own work);
- `cold`: `build_baseline` with an empty parse cache, reader processes as it chooses them;
- `cold, one process`: the same with `workers=1`;
- `warm`: again, every file's record in the cache;
- `one file grew`: after appending a response to one transcript, so that file alone is read.

Each prints wall seconds and CPU seconds (its own plus its reader processes'): the machine may
be shared, so CPU seconds are the steadier figure. With `--repeat N` each is run N times and
the fastest kept. Prints one JSON object; exits 1 if a run's requests differ from what the
generator wrote (plus the appended response, for the last).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
BASELINE_CHILD = """
import json, resource, sys, time
from pathlib import Path
files = sorted(p for p in Path(sys.argv[1]).rglob("*.jsonl") if p.name != "usage.jsonl")
started, cpu = time.perf_counter(), time.process_time()
lines = 0
for path in files:
    with open(path, "rb") as handle:
        for raw in handle:
            lines += 1
            try:
                json.loads(raw)
            except ValueError:
                pass
print(json.dumps({"seconds": time.perf_counter() - started,
                  "cpu_seconds": time.process_time() - cpu, "lines": lines}))
"""
WHEREIN_CHILD = """
import json, os, resource, sys, time
from pathlib import Path
from wherein.meter import build_baseline
imported_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ledgers = [Path(p) for p in sys.argv[2:]]
workers = None if sys.argv[1] == "auto" else int(sys.argv[1])
started, cpu = time.perf_counter(), time.process_time()
summary = build_baseline(ledgers, workers=workers)
seconds = time.perf_counter() - started
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds,
                  "cpu_seconds": time.process_time() - cpu + children.ru_utime + children.ru_stime,
                  "requests": summary["requests"], "sessions": summary["sessions"],
                  "lines": summary["sources"]["lines"],
                  "files_from_cache": summary["sources"]["files_from_cache"],
                  "malformed_lines": summary["malformed_lines"], "cost_usd": summary["cost_usd"],
                  "imports_rss_mib": imported_kib / 1024,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
APPENDED = {
    "type": "assistant",
    "sessionId": "bench-appended",
    "timestamp": "2026-10-15T12:00:00.000Z",
    "requestId": "req_bench_appended",
    "message": {
        "id": "msg_bench_appended",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "appended"}],
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 1000, "output_tokens": 10},
    },
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_baseline.py", description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, help="where the ledger is written (and reused)")
    parser.add_argument("--format", choices=["claude", "generic"], default="claude")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the fastest kept")
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.gettempdir()) / f"wherein-bench-{args.format}-{args.lines}"
    if not (folder / "expected.json").exists():
        make = [sys.executable, str(SCRIPTS / "make_ledger.py"), str(folder)]
        make += ["--lines", str(args.lines), "--format", args.format, "--recall-share", "0.2"]
        subprocess.run(make, check=True)
    expected = json.loads((folder / "expected.json").read_text())
    ledgers = [str(folder / "ledger.jsonl")] if args.format == "generic" else []
    files = [f for f in folder.rglob("*.jsonl") if f.name != "usage.jsonl"]
    home = Path(tempfile.mkdtemp(prefix="wherein-bench-home-"))
    environ = {
        "CLAUDE_CONFIG_DIR": str(folder),
        "WHEREIN_HOME": str(home),  # the parse cache goes here, the ledger folder stays as made
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
    }
    shutil.copyfile(folder / "usage.jsonl", home / "usage.jsonl")

    def child(code: str, *extra: str) -> dict:
        command = [sys.executable, "-c", code, *extra]
        out = subprocess.run(command, env=environ, check=True, capture_output=True, text=True)
        return json.loads(out.stdout)

    def fastest(code: str, *extra: str, before=None) -> dict:
        runs = []
        for _ in range(max(1, args.repeat)):
            if before is not None:
                before()
            runs.append(child(code, *extra))
        return min(runs, key=lambda r: r["cpu_seconds"])

    def empty_cache() -> None:
        (home / "meter-cache.sqlite").unlink(missing_ok=True)

    results = {"json.loads": fastest(BASELINE_CHILD, str(folder))}
    results["cold"] = fastest(WHEREIN_CHILD, "auto", *ledgers, before=empty_cache)
    results["cold, one process"] = fastest(WHEREIN_CHILD, "1", *ledgers, before=empty_cache)
    results["warm"] = fastest(WHEREIN_CHILD, "auto", *ledgers)
    grown = Path(ledgers[0]) if ledgers else sorted(folder.rglob("projects/*/*.jsonl"))[0]
    original = grown.read_bytes()
    try:
        line = APPENDED if not ledgers else _generic_row()
        grown.write_bytes(original + json.dumps(line).encode() + b"\n")
        results["one file grew"] = child(WHEREIN_CHILD, "auto", *ledgers)
    finally:
        grown.write_bytes(original)
    shutil.rmtree(home, ignore_errors=True)
    wanted = expected["requests"]
    ok = all(results[k]["requests"] == wanted for k in ("cold", "cold, one process", "warm"))
    ok = ok and results["one file grew"]["requests"] == wanted + 1
    report = {
        "format": args.format,
        "files": len(files),
        "bytes": sum(f.stat().st_size for f in files),
        "requests_expected": wanted,
        "runs": results,
        "cold_vs_json_loads_cpu": results["cold"]["cpu_seconds"]
        / results["json.loads"]["cpu_seconds"],
    }
    print(json.dumps(report, indent=1))
    return 0 if ok else 1


def _generic_row() -> dict:
    counts = {"input_tokens": 5, "cache_read_tokens": 1000, "cache_write_tokens": 0}
    return {
        "time": "2026-10-15T12:00:00Z",
        "session": "bench-appended",
        "model": "gpt-5-codex",
        **counts,
        "output_tokens": 10,
    }


if __name__ == "__main__":
    sys.exit(main())
