"""What a search hands back: ranked hits with bounded, stale-checked excerpts.

The records are the `search --json` contract (docs/contracts.md); `cut_hit` turns an index row
into one, cutting its excerpt to the configured lines and each line to a bounded width.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wherein.index.store import ChunkRow
from wherein.ranking.signals import Candidate
from wherein.ranking.step import OFF, StepStatus
from wherein.scope import Scope
from wherein.source_files import BYTE_ORDER_MARK
from wherein.tier_view import TierCoverage

if TYPE_CHECKING:
    from wherein.related import Origin

__all__ = ["Hit", "SearchResult", "cut_hit", "drop_overlaps"]

# Long lines are cut too, so a bounded excerpt stays bounded in characters.
MAX_EXCERPT_LINE_CHARS = 400


@dataclass(frozen=True)
class Hit:
    """One ranked excerpt."""

    rank: int
    path: str
    root: str
    source_path: str | None
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    language: str
    score: float
    similarity: float | None
    stale: bool
    truncated: bool
    excerpt: str
    header: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "path": self.path,
            "root": self.root,
            "source_path": self.source_path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "symbols": list(self.symbols),
            "language": self.language,
            "score": self.score,
            "similarity": self.similarity,
            "stale": self.stale,
            "truncated": self.truncated,
            "excerpt": self.excerpt,
        }


@dataclass(frozen=True)
class SearchResult:
    """Everything one search returns; `to_json` is the `search --json` contract."""

    query: str
    workspace: str
    scope: Scope
    hits: list[Hit]
    pending_files: int
    pending_chunks: int
    warnings: list[str] = field(default_factory=list)
    returned_chars: int = 0
    source_chars: int = 0
    expansion: StepStatus = StepStatus(OFF)
    rerank: StepStatus = StepStatus(OFF)
    tiers: dict[str, TierCoverage] = field(default_factory=dict)
    # What a related search compared (`wherein related`); None for a search.
    origin: Origin | None = None

    def to_json(self) -> dict[str, Any]:
        payload = {
            "query": self.query,
            "workspace": self.workspace,
            "scope": self.scope.to_json(),
            "results": [hit.to_json() for hit in self.hits],
            "pending": {"files": self.pending_files, "chunks": self.pending_chunks},
            "warnings": list(self.warnings),
            "usage": {"returned_chars": self.returned_chars, "source_chars": self.source_chars},
            "expansion": self.expansion.to_json(),
            "rerank": self.rerank.to_json(),
            "tiers": {name: coverage.to_json() for name, coverage in self.tiers.items()},
        }
        if self.origin is not None:  # an addition: a search's object keeps its exact keys
            payload["origin"] = self.origin.to_json()
        return payload


def drop_overlaps(candidates: Iterable[Candidate], keep: int | None = None) -> list[Candidate]:
    """Keep the better of two chunks whose lines overlap in one file, the first `keep` at most
    (the rest would be cut anyway: stopping there saves a warm search the scan)."""
    kept: list[Candidate] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    for c in candidates:
        if keep is not None and len(kept) >= keep:
            break
        taken = spans.setdefault(c.path, [])
        if any(c.start_line <= end and start <= c.end_line for start, end in taken):
            continue
        taken.append((c.start_line, c.end_line))
        kept.append(c)
    return kept


def cut_hit(
    rank: int,
    row: ChunkRow,
    score: float,
    similarity: float | None,
    excerpt_lines: int,
    workspace_root: str,
) -> Hit:
    text = row.text
    if row.start_line == 1:  # a file read before its byte-order mark was left out
        text = text.removeprefix(BYTE_ORDER_MARK)
    lines = text.split("\n")
    truncated = len(lines) > excerpt_lines
    lines = lines[:excerpt_lines]
    clipped = [line[:MAX_EXCERPT_LINE_CHARS] for line in lines]
    truncated = truncated or clipped != lines
    end_line = row.start_line + len(lines) - 1 if truncated else row.end_line
    fs_path = os.fsdecode(row.fs_path)
    return Hit(
        rank=rank,
        path=row.path,
        root=row.root,
        source_path=None if row.root == workspace_root else fs_path,
        start_line=row.start_line,
        end_line=end_line,
        symbols=row.symbols,
        language=row.language,
        score=round(float(score), 6),
        similarity=None if similarity is None else round(float(similarity), 4),
        stale=is_stale(fs_path, row.size, row.mtime_ns),
        truncated=truncated,
        excerpt="\n".join(clipped),
        header=row.header,
    )


def is_stale(fs_path: str, size: int, mtime_ns: int) -> bool:
    try:
        info = os.stat(fs_path, follow_symlinks=False)
    except OSError:
        return True
    return info.st_size != size or info.st_ctime_ns != mtime_ns
