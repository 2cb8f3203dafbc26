"""Which ledgers to read, and reading them all into one table of requests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wherein.errors import UsageError, WhereinError
from wherein.meter.claude import (
    DEDUPE_FIRST,
    DEDUPE_LARGEST,
    PROJECTS_DIR,
    ClaudeReader,
    claude_candidates,
    claude_transcripts,
)
from wherein.meter.codex import codex_rollouts, codex_sessions_dir, read_codex
from wherein.meter.generic import read_generic
from wherein.meter.jsonl import ReadStats
from wherein.meter.table import RequestTable

__all__ = ["Ledger", "LedgerMissing", "LedgerSet", "find_ledgers", "read_ledgers"]

DEDUPE_RULES = (DEDUPE_LARGEST, DEDUPE_FIRST)


class LedgerMissing(WhereinError):
    """No agent ledger was found to read."""


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


def read_ledgers(files: LedgerSet, dedupe: str = DEDUPE_LARGEST) -> Ledger:
    """Read every file of `files` into one table, line by line.

    Args:
        files: the ledgers to read.
        dedupe: how streamed copies of one Claude response merge: "largest" keeps the line
            with the largest token total; "first" keeps the first line (ccusage's rule, for
            comparison).
    """
    if dedupe not in DEDUPE_RULES:
        raise UsageError(f"Unknown dedupe rule {dedupe!r}: choose from {sorted(DEDUPE_RULES)}.")
    table = RequestTable()
    stats = ReadStats()
    claude = ClaudeReader(table, stats, dedupe=dedupe)
    for path in files.claude:
        claude.read(path)
    for path in files.codex:
        read_codex(path, table, stats)
    for path in files.generic:
        read_generic(path, table, stats)
    return Ledger(
        table=table,
        stats=stats,
        files=files,
        recall_calls=claude.recall_calls,
        sidechain_requests=claude.sidechain_requests,
        dedupe=dedupe,
    )
