"""Instructions spent preparing files for the index, old code against new, under callgrind.

On a shared machine a first index's wall time drifts by a third from one minute to the
next, so a change worth 5% of it cannot be seen there. Instructions counted by valgrind's
callgrind are the same from run to run for the same code and input, whatever else the
machine does: this script counts them for one step of preparing a sample of a folder's files
(every `--every`th file the walk finds), with the code at `--old` and with this checkout.

For each step and each code, two runs: one that only loads the code and the sample (and,
for `chunk`, `embed` and `terms`, reads and chunks the sample), and one that also does the
step; the step's own count is the difference. Steps:

- `prepare`: each file as a worker prepares it (read, hash, chunk, BM25 terms, fast vectors).
- `chunk`: tree-sitter chunking alone, grammars and queries loaded beforehand.
- `embed`: the fast tier's vectors of each file's chunks, from a cold cache of pieces.
- `terms`: the BM25 terms of each chunk, from cold caches.

Counts miss what memory stalls cost (the fast tier's pooling is bound by them): read them
beside a wall-time figure, not instead of one. The same code counted twice, with another
module changed beside it, differed by up to 1%: below that a ratio says nothing. Each run
takes one to four minutes (valgrind runs Python about 50 times slower); the standard
library's every 24th file (102 files) took 5.6 G instructions to prepare: chunking 38%, the
fast tier 42%, BM25 terms 12%.

    python scripts/bench_instructions.py --old HEAD~3 --corpus /tmp/stdlib-ws/python3.11
    python scripts/bench_instructions.py --old HEAD --step chunk --step terms --every 48
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STEPS = ("prepare", "chunk", "embed", "terms")
MAX_FILE_BYTES = 1_048_576
_COLLECTED = re.compile(r"^==\d+== Collected : (\d+)\s*$", re.MULTILINE)


def collected(valgrind_stderr: str) -> int:
    """The instruction count callgrind reports at the end of a run.

    Raises:
        ValueError: the output holds no count (valgrind failed, or is not callgrind).
    """
    found = _COLLECTED.findall(valgrind_stderr)
    if not found:
        raise ValueError(f"no callgrind count in: {valgrind_stderr[-500:]!r}")
    return int(found[-1])


def sample(corpus: Path, every: int) -> list:
    """Every `every`th file the walk of `corpus` finds (the walk's own order)."""
    from wherein.workspace import Root, WalkReport, walk_root

    entries = list(walk_root(Root(corpus.resolve()), MAX_FILE_BYTES, WalkReport()))
    return entries[::every]


def run_step(step: str, entries: list, do: bool = True) -> int:
    """Load what `step` reads; then, when `do`, do it. Returns the chunks it handled.

    Every step loads the fast tier's model, as a worker does; `chunk`, `embed` and `terms`
    also read and chunk the sample first (their input, and grammars and queries loaded).
    """
    from wherein.chunking import chunk_source, skip_reason
    from wherein.embedding.static import StaticEmbedder
    from wherein.index.prepare import prepare_file
    from wherein.index.vector_tables import embedding_text
    from wherein.ranking.tokens import document_terms
    from wherein.workspace import SourceSkipped, read_source

    fast = StaticEmbedder()
    fast.expect_indexing()
    if step == "prepare":
        if not do:
            return 0
        return sum(len(prepare_file(e, MAX_FILE_BYTES, None, fast).chunks) for e in entries)
    files = []
    for entry in entries:
        source = read_source(entry, MAX_FILE_BYTES)
        if isinstance(source, SourceSkipped) or skip_reason(entry.rel, source.text) is not None:
            continue
        files.append((entry, source.text, chunk_source(entry.rel, source.text)[1]))
    if not do:
        return 0
    handled = 0
    for entry, text, pieces in files:
        path = entry.display_path
        if step == "chunk":
            chunk_source(entry.rel, text)
        elif step == "embed":
            texts = [embedding_text(path, p.symbols, p.header, p.text) for p in pieces]
            if texts:
                fast.embed(texts)
        else:
            for piece in pieces:
                document_terms(path, piece.header, piece.text)
        handled += len(pieces)
    return handled


def _count(code: Path, step: str, do: bool, corpus: Path, every: int, scratch: Path) -> int:
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
    env["TOKENIZERS_PARALLELISM"] = "false"  # one thread: the count of one worker
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={scratch / 'callgrind.out'}",
        sys.executable,
        str(Path(__file__).resolve()),
        "--harness",
        "--corpus",
        str(corpus),
        "--every",
        str(every),
        "--step",
        step,
    ]
    if not do:
        command.append("--baseline")
    # Run from the scratch folder: a working folder holding `wherein/` would shadow PYTHONPATH.
    done = subprocess.run(command, env=env, cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{code}: step {step} failed: {done.stderr[-2000:]}")
    return collected(done.stderr)


def _old_code(revision: str, scratch: Path) -> Path:
    """The `wherein` package at `revision`, unpacked into `scratch`."""
    target = scratch / "old"
    target.mkdir()
    archive = subprocess.run(
        ["git", "archive", revision, "wherein"], cwd=REPO, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="the git revision of the old code")
    parser.add_argument("--corpus", type=Path, help="a folder to sample (the standard library)")
    parser.add_argument("--every", type=int, default=24, help="sample every Nth file (24)")
    parser.add_argument("--step", choices=STEPS, action="append", help="repeatable (prepare)")
    parser.add_argument("--harness", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error("--every must be 1 or more")
    steps = args.step or ["prepare"]
    if args.harness:  # one run under valgrind, started by `_count`
        print(run_step(steps[0], sample(args.corpus, args.every), do=not args.baseline))
        return 0
    if args.old is None:
        parser.error("--old is required")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="wherein-instructions-") as scratch_name:
        scratch = Path(scratch_name)
        corpus = args.corpus
        if corpus is None:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from measure import copy_stdlib

            corpus = copy_stdlib(scratch / "corpus")
        codes = {"old": _old_code(args.old, scratch), "new": REPO}
        report: dict = {"old": args.old, "every": args.every, "steps": {}}
        for label, code in codes.items():
            for step in steps:
                loaded = _count(code, step, False, corpus, args.every, scratch)
                done = _count(code, step, True, corpus, args.every, scratch)
                report["steps"].setdefault(step, {})[label] = done - loaded
        for counts in report["steps"].values():
            counts["ratio"] = round(counts["new"] / counts["old"], 4) if counts["old"] else None
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
