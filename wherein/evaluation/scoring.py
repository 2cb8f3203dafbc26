"""Scores over distinct files: R@1, R@5, R@10, MRR@10, and what the answers cost in context.

As `shared/bench/score.py` scores its commit set: results in release-notes files are dropped,
the first 10 remaining results are reduced to distinct files in order, and a question is a hit
at k when a gold file is among the first k files. The context cost sets the characters the
counted results hand back against the length of the distinct files they come from (what
reading those files whole would have cost).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wherein.evaluation.filters import is_release_notes

__all__ = ["CUTOFF", "RESULTS_ASKED", "Answer", "Metrics", "score_answer", "summarize"]

CUTOFF = 10
# Room for release-notes results that are dropped before the first 10 are counted.
RESULTS_ASKED = CUTOFF + 5


@dataclass(frozen=True)
class Answer:
    """One retriever's answer to one question, as scored."""

    rank: int | None  # 1-based rank of the first gold file among the distinct files
    files: tuple[str, ...]  # the first CUTOFF distinct files
    returned_chars: int  # characters the counted results hand back
    file_chars: int  # length of the distinct files they come from
    ms: float  # wall-clock milliseconds of the search


@dataclass(frozen=True)
class Metrics:
    """A retriever's scores over a set of questions."""

    queries: int
    r1: float
    r5: float
    r10: float
    mrr: float
    returned_chars: float  # mean per question
    file_chars: float  # mean per question
    p50_ms: float

    def to_json(self) -> dict:
        return {
            "queries": self.queries,
            "r1": self.r1,
            "r5": self.r5,
            "r10": self.r10,
            "mrr10": self.mrr,
            "returned_chars_per_query": self.returned_chars,
            "file_chars_per_query": self.file_chars,
            "p50_ms": self.p50_ms,
        }


def score_answer(
    results: Sequence[tuple[str, int]],
    gold: frozenset[str],
    file_chars: Callable[[str], int],
    ms: float = 0.0,
) -> Answer:
    """Score one ranked list of (path, characters returned) results against the gold files."""
    kept = [(path, chars) for path, chars in results if not is_release_notes(path)][:CUTOFF]
    files = list(dict.fromkeys(path for path, _ in kept))
    rank = next((i for i, path in enumerate(files, 1) if path in gold), None)
    return Answer(
        rank=rank,
        files=tuple(files),
        returned_chars=sum(chars for _, chars in kept),
        file_chars=sum(file_chars(path) for path in files),
        ms=ms,
    )


def summarize(answers: Sequence[Answer]) -> Metrics | None:
    """The scores of a set of answers; None for an empty set."""
    n = len(answers)
    if not n:
        return None

    def hit(k: int) -> float:
        return sum(1 for a in answers if a.rank is not None and a.rank <= k) / n

    return Metrics(
        queries=n,
        r1=hit(1),
        r5=hit(5),
        r10=hit(CUTOFF),
        mrr=sum(1.0 / a.rank for a in answers if a.rank is not None) / n,
        returned_chars=sum(a.returned_chars for a in answers) / n,
        file_chars=sum(a.file_chars for a in answers) / n,
        p50_ms=statistics.median(a.ms for a in answers),
    )
