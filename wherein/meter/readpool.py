"""Parsing ledger files, in reader processes when there is enough to read.

Each file parses on its own into a `ParsedFile` (the merge across files comes after, in
order), so files can be parsed side by side: a million transcript lines take a few seconds
of CPU to decode, and a second core halves that. Processes are forked (Linux only: forking
is the cheap start, and macOS's is unsafe once system frameworks are loaded) and hand back
each file's record as bytes, the form the cache keeps anyway. Less than `POOL_MIN_BYTES` to
read, or one core, and everything runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from wherein.meter.claude import parse_claude
from wherein.meter.codex import parse_codex
from wherein.meter.generic import parse_generic
from wherein.meter.parsed import KIND_CLAUDE, KIND_CODEX, ParsedFile

__all__ = ["MAX_WORKERS", "POOL_MIN_BYTES", "Job", "parse_jobs", "reader_count"]

POOL_MIN_BYTES = 64 << 20  # below this, starting processes costs more than it saves
MAX_WORKERS = 4
FILES_PER_TASK = 16  # transcripts are many and small: hand them out a few at a time


class Job(NamedTuple):
    """One file to parse, how, and its size (which decides whether a pool is worth it)."""

    kind: str
    path: Path
    dedupe: str
    size: int

    @property
    def rule(self) -> str:
        """What the cache keys the record by, with the path: the reader and its dedupe rule."""
        return f"{self.kind}:{self.dedupe}" if self.kind == KIND_CLAUDE else self.kind


def reader_count() -> int:
    """The processes to parse with: the cores this process may use, at most MAX_WORKERS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def parse_jobs(
    jobs: Sequence[Job], workers: int | None = None, min_bytes: int = POOL_MIN_BYTES
) -> Iterator[tuple[ParsedFile, bytes | None]]:
    """Each job's record, in the order given, with its bytes when it came from a process.

    Args:
        jobs: the files to parse.
        workers: processes to use (default `reader_count()`); 1 parses here.
        min_bytes: below this many bytes to read, parse here whatever `workers` says.
    """
    count = reader_count() if workers is None else workers
    total = sum(job.size for job in jobs)
    if count < 2 or len(jobs) < 2 or total < min_bytes or not sys.platform.startswith("linux"):
        for job in jobs:
            yield parse_one(job), None
        return
    context = multiprocessing.get_context("fork")
    chunk = max(1, min(FILES_PER_TASK, len(jobs) // (count * 4)))
    with context.Pool(count) as pool:
        for data in pool.imap(_parse_to_bytes, jobs, chunksize=chunk):
            yield ParsedFile.from_bytes(data), data


def parse_one(job: Job) -> ParsedFile:
    """Parse one file; one whose read fails (a disk error) is noted as unreadable."""
    try:
        if job.kind == KIND_CLAUDE:
            return parse_claude(job.path, job.dedupe)
        if job.kind == KIND_CODEX:
            return parse_codex(job.path)
        return parse_generic(job.path)
    except OSError as err:
        parsed = ParsedFile(job.kind)
        parsed.stats.unreadable.append(f"{job.path}: it cannot be read ({err.strerror or err})")
        return parsed


def _parse_to_bytes(job: Job) -> bytes:
    return parse_one(job).to_bytes()
