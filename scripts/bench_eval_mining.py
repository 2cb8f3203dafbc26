"""Time how `wherein eval` mines a long history: git log, parsing, filters, renames followed.

    python scripts/bench_eval_mining.py [--history 10000] [--commits N] [--dir DIR]

Writes a repository of `--history` scripted commits with `git fast-import` into DIR (default: a
folder under the system temp directory, reused on later runs): modifications of 1 to 3 source
files, test-only and docs commits, releases, five-file sweeps and a module renamed now and
then. Then mines the newest `--commits` (default: all of them) as `wherein eval` does and
prints one JSON object: commits read and kept, the drop counts, seconds for git and for the
filters, and commits per second. Exits 1 if the questions kept are not the ones scripted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wherein.evaluation.mining import read_history
from wherein.evaluation.questions import select_questions

MODULES = 50
START_TIME = 1_600_000_000
NOUNS = (
    "retry budget",
    "cookie jar",
    "redirect limit",
    "proxy list",
    "header case",
    "timeout",
    "chunk size",
    "cache key",
    "lock file",
    "path prefix",
)
# One cycle of commit kinds; "edit" commits are the questions eval keeps.
KINDS = ("edit", "edit", "tests", "edit", "docs", "edit", "release", "edit", "sweep", "edit")
RENAME_EVERY = 997


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n%s\n" % (len(raw), raw)


def script(history: int) -> tuple[bytes, int]:
    """The fast-import stream of `history` commits, and how many of them are questions."""
    names = [f"pkg/mod{i}.py" for i in range(MODULES)]
    bodies = {name: f"def handler_{i}():\n    return {i}\n" for i, name in enumerate(names)}
    out = [b"reset refs/heads/main\n"]
    questions = 0
    for i in range(history):
        kind = "initial" if i == 0 else KINDS[i % len(KINDS)]
        renamed = i > 0 and i % RENAME_EVERY == 0
        changes: list[bytes] = []
        if kind == "initial":
            subject = "Initial layout of the package"
            touched = names
        elif renamed:
            old = names[i % MODULES]
            new = f"pkg/moved{i}/mod{i % MODULES}.py"
            names[i % MODULES] = new
            bodies[new] = bodies.pop(old)
            changes.append(f"R {old} {new}\n".encode())
            subject, touched = f"Move module {i % MODULES} into its own folder {i}", []
        elif kind == "edit":
            count = 1 + i % 3
            touched = [names[(i * 7 + k) % MODULES] for k in range(count)]
            subject = f"Handle the {NOUNS[i % len(NOUNS)]} in module {i % MODULES} for case {i}"
        elif kind == "sweep":
            touched = [names[(i + k) % MODULES] for k in range(5)]
            subject = f"Share one setting across five modules, step {i}"
        else:
            touched = []
            subject = {
                "tests": f"Add tests for case {i}",
                "docs": f"docs: explain case {i}",
                "release": f"Release 1.{i}.0",
            }[kind]
            target = {"tests": "tests/test_pkg.py", "docs": "README.md", "release": "CHANGES.md"}
            changes.append(b"M 100644 inline " + target[kind].encode() + b"\n")
            changes.append(_data(f"# {i}\n"))
        for name in touched:
            # The last line changes; the file keeps its size, so the stream grows linearly.
            text = bodies[name] + f"# change {i}\n"
            changes.append(b"M 100644 inline " + name.encode() + b"\n" + _data(text))
        if renamed or kind == "edit":  # a rename is a modification under a new name
            questions += 1
        stamp = START_TIME + i * 60
        out.append(b"commit refs/heads/main\n")
        out.append(f"committer Bench <bench@example.invalid> {stamp} +0000\n".encode())
        out.append(_data(subject))
        out.extend(changes)
    return b"".join(out), questions


def build(folder: Path, history: int) -> int:
    """Create (or reuse) the repository; the number of questions its history holds."""
    stream, questions = script(history)
    marker = folder / "bench-history.json"
    if marker.exists() and json.loads(marker.read_text()) == {"history": history}:
        return questions
    repo = folder / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=stream, check=True)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)
    marker.write_text(json.dumps({"history": history}))
    return questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench_eval_mining.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--history", type=int, default=10_000, help="commits in the repository")
    parser.add_argument("--commits", type=int, help="commits to mine (default: all)")
    parser.add_argument("--dir", type=Path, help="where the repository is written (and reused)")
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.gettempdir()) / f"wherein-bench-mining-{args.history}"
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    questions = build(folder, args.history)
    built_s = time.perf_counter() - started
    commits = args.commits or args.history

    started, cpu = time.perf_counter(), time.process_time()
    history = read_history(folder / "repo", commits=commits)
    git_s = time.perf_counter() - started
    selected = select_questions(history)
    total_s = time.perf_counter() - started
    result = {
        "history": args.history,
        "commits_asked": commits,
        "considered": selected.considered,
        "kept": len(selected.questions),
        "dropped": selected.dropped,
        "build_s": round(built_s, 3),
        "git_and_parse_s": round(git_s, 3),
        "filters_s": round(total_s - git_s, 3),
        "total_s": round(total_s, 3),
        "cpu_s_this_process": round(time.process_time() - cpu, 3),
        "commits_per_s": round(selected.considered / total_s),
    }
    print(json.dumps(result, indent=1))
    expected = questions if commits >= args.history else None
    return 0 if expected is None or result["kept"] == expected else 1


if __name__ == "__main__":
    sys.exit(main())
