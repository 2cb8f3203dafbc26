"""Time `wherein baseline` reading a large synthetic ledger, and measure its peak memory.

    python scripts/bench_baseline.py [--lines 1000000] [--dir DIR] [--format claude|generic]

Writes the ledger with scripts/make_ledger.py into DIR (default: a folder under the system
temp directory, reused on later runs), then reads it in a fresh child process so the peak
resident set size is that of the read alone plus the interpreter and package imports, which
are measured separately. Prints one JSON object: lines and bytes read, requests found,
wall and CPU seconds (the machine may be shared: CPU seconds are the steadier figure), lines
per second, peak RSS and the RSS right after the imports.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
CHILD = """
import json, os, resource, sys, time
from pathlib import Path
from wherein.meter import build_baseline
imported_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ledgers = [Path(p) for p in sys.argv[1:]]
started, cpu_started = time.perf_counter(), time.process_time()
summary = build_baseline(ledgers)
seconds = time.perf_counter() - started
cpu_seconds = time.process_time() - cpu_started
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "requests": summary["requests"],
                  "sessions": summary["sessions"], "lines": summary["sources"]["lines"],
                  "malformed_lines": summary["malformed_lines"], "cost_usd": summary["cost_usd"],
                  "imports_rss_mib": imported_kib / 1024, "peak_rss_mib": peak_kib / 1024}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_baseline.py", description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, help="where the ledger is written (and reused)")
    parser.add_argument("--format", choices=["claude", "generic"], default="claude")
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.gettempdir()) / f"wherein-bench-{args.format}-{args.lines}"
    if not (folder / "expected.json").exists():
        make = [
            sys.executable,
            str(SCRIPTS / "make_ledger.py"),
            str(folder),
            "--lines",
            str(args.lines),
            "--format",
            args.format,
            "--recall-share",
            "0.2",
        ]
        subprocess.run(make, check=True)
    expected = json.loads((folder / "expected.json").read_text())
    ledgers = [str(folder / "ledger.jsonl")] if args.format == "generic" else []
    files = list(folder.rglob("*.jsonl"))
    environ = {
        "CLAUDE_CONFIG_DIR": str(folder),
        "WHEREIN_HOME": str(folder),
        "HOME": str(folder),
        "PATH": "/usr/bin:/bin",
    }
    child = subprocess.run(
        [sys.executable, "-c", CHILD, *ledgers],
        env=environ,
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(child.stdout)
    result.update(
        {
            "format": args.format,
            "files": len(files),
            "bytes": sum(f.stat().st_size for f in files),
            "lines_per_second": result["lines"] / result["seconds"],
            "requests_expected": expected["requests"],
        }
    )
    print(json.dumps(result, indent=1))
    return 0 if result["requests"] == expected["requests"] else 1


if __name__ == "__main__":
    sys.exit(main())
