"""Which ledgers to read, and reading them all into one table of requests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wherein.errors import LedgerMissing, UsageError
from wherein.meter.claude import PROJECTS_DIR, claude_candidates, claude_transcripts
from wherein.meter.codex import codex_rollouts, codex_sessions_dir
from wherein.meter.jsonl import ReadStats
from wherein.meter.parsecache import ParseCache, file_signature
from wherein.meter.parsed import (
    DEDUPE_FIRST,
    DEDUPE_LARGEST,
    KIND_CLAUDE,
    KIND_CODEX,
    KIND_GENERIC,
    Merger,
)
from wherein.meter.readpool import POOL_MIN_BYTES, Job, parse_jobs, parse_one
from wherein.meter.table import RequestTable
from wherein.safe_files import not_regular

__all__ = ["Ledger", "LedgerMissing", "LedgerSet", "find_ledgers", "read_ledgers"]

DEDUPE_RULES = (DEDUPE_LARGEST, DEDUPE_FIRST)


@dataclass(frozen=True)
class LedgerSet:
    """The files to read, by format."""

    claude: tuple[Path, ...] = ()
    codex: tuple[Path, ...] = ()
    generic: tuple[Path, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.claude or self.codex or self.generic)


@dataclass
class Ledger:
    """Every request read, with what reading met along the way."""

    table: RequestTable
    stats: ReadStats
    files: LedgerSet
    recall_calls: dict[str, int] = field(default_factory=dict)  # session -> recall tool_use
    sidechain_requests: int = 0
    dedupe: str = DEDUPE_LARGEST
    files_from_cache: int = 0  # files whose record the cache held, unchanged since
    cache_problem: str | None = None  # why the cache was not used, when it was not


def find_ledgers(
    generic: Iterable[Path] = (), environ: Mapping[str, str] | None = None
) -> LedgerSet:
    """`generic` files if any were named, else the Claude Code and Codex ledgers of this user.

    Raises:
        UsageError: a named ledger file does not exist.
        LedgerMissing: nothing was named and no Claude Code or Codex ledger was found.
    """
    named = tuple(Path(p).expanduser() for p in generic)
    if named:
        for path in named:
            if not path.is_file():
                # A named ledger may be a link (it is the user's own path), so follow it.
                kind = not_regular(path.resolve()) if path.exists() else None
                if kind is not None:
                    raise UsageError(
                        f"{path} is {kind}, not a ledger file: --ledger reads a JSONL file. "
                        "Copy the ledger to a file and pass that."
                    )
                raise UsageError(f"No ledger file at {path}. Check the path given to --ledger.")
        return LedgerSet(generic=named)
    found = LedgerSet(
        claude=tuple(claude_transcripts(environ)), codex=tuple(codex_rollouts(environ))
    )
    if not found:
        places = [str(p / PROJECTS_DIR) for p in claude_candidates(environ)]
        places.append(str(codex_sessions_dir(environ)))
        searched = ", ".join(places)
        raise LedgerMissing(f"No agent ledger found in {searched}. Pass one with --ledger FILE.")
    return found


def read_ledgers(
    files: LedgerSet,
    dedupe: str = DEDUPE_LARGEST,
    *,
    cache: ParseCache | None = None,
    workers: int | None = None,
    pool_min_bytes: int = POOL_MIN_BYTES,
) -> Ledger:
    """Read every file of `files` into one table: Claude transcripts, then Codex rollouts,
    then generic ledgers, each in the order given.

    Args:
        files: the ledgers to read.
        dedupe: how streamed copies of one Claude response merge: "largest" keeps the line
            with the largest token total; "first" keeps the first line (ccusage's rule, for
            comparison).
        cache: where each file's results are kept between runs; a file whose size, mtime
            and inode match its record is not read again.
        workers: reader processes (see `readpool.parse_jobs`); 1 reads in this process.
        pool_min_bytes: the bytes to read below which no process is started.
    """
    if dedupe not in DEDUPE_RULES:
        raise UsageError(f"Unknown dedupe rule {dedupe!r}: choose from {sorted(DEDUPE_RULES)}.")
    table = RequestTable()
    stats = ReadStats()
    merger = Merger(table, stats, dedupe)
    jobs = [
        *(Job(KIND_CLAUDE, path, dedupe, 0) for path in files.claude),
        *(Job(KIND_CODEX, path, dedupe, 0) for path in files.codex),
        *(Job(KIND_GENERIC, path, dedupe, 0) for path in files.generic),
    ]
    if cache is not None:
        cache.load()
    cached: list[bool] = []
    to_parse: list[Job] = []
    for job in jobs:
        signature = file_signature(job.path, follow_links=job.kind == KIND_GENERIC)
        hit = cache is not None and cache.has(job.path, job.rule, signature)
        cached.append(hit)
        if not hit:
            to_parse.append(job._replace(size=signature[0] if signature else 0))
    fresh = parse_jobs(to_parse, workers, pool_min_bytes)
    from_cache = 0
    for job, hit in zip(jobs, cached, strict=True):
        parsed = cache.get(job.path, job.rule) if hit and cache is not None else None
        if parsed is not None:
            from_cache += 1
        else:
            if hit:  # the record could not be read back: parse the file here instead
                parsed, data = parse_one(job), None
            else:
                parsed, data = next(fresh)
            if cache is not None:
                cache.put(job.path, job.rule, parsed, data)
        merger.merge(parsed)
    if cache is not None:
        cache.close()
    return Ledger(
        table=table,
        stats=stats,
        files=files,
        recall_calls=merger.recall_calls,
        sidechain_requests=merger.sidechain_requests,
        dedupe=dedupe,
        files_from_cache=from_cache,
        cache_problem=None if cache is None else cache.problem,
    )
