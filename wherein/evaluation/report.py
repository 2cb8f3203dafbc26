"""What an evaluation found, as records: the terminal table, `--json` and `--html` render it.

Scores are reported for every question and apart for lexical and semantic ones, since a
question that names its answer is what grep already does well. A set of fewer than
`MIN_TRUSTED_QUERIES` questions is flagged wherever its numbers appear.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wherein.evaluation.filters import DROP_REASONS
from wherein.evaluation.lexical import LEXICAL, SEMANTIC
from wherein.evaluation.questions import Question, QuestionSet, kinds
from wherein.evaluation.scoring import CUTOFF, Answer, Metrics, summarize

__all__ = [
    "GROUPS",
    "MIN_TRUSTED_QUERIES",
    "EvalReport",
    "RetrieverResult",
    "few_queries_warning",
]

# Below this many questions one query moves a recall figure by more than 3 points.
MIN_TRUSTED_QUERIES = 30
GROUPS = ("all", LEXICAL, SEMANTIC)
GOLD_AT_HEAD = (
    "Gold files are checked at HEAD (renames followed); the index is the working tree as it "
    "is now, so uncommitted changes are searched too."
)


@dataclass(frozen=True)
class RetrieverResult:
    """One retriever's answers to every question, in question order."""

    name: str  # "wherein", "embedding.provider=static", "bm25", "grep", ...
    label: str  # how the table names it
    kind: str  # "wherein" or "baseline"
    answers: tuple[Answer, ...]
    overrides: tuple[tuple[str, str], ...] = ()
    index_line: str | None = None
    notices: tuple[str, ...] = ()

    def metrics(self, questions: tuple[Question, ...], group: str) -> Metrics | None:
        chosen = [
            a for q, a in zip(questions, self.answers, strict=True) if group in ("all", q.kind)
        ]
        return summarize(chosen)


@dataclass(frozen=True)
class EvalReport:
    """An evaluation of search on one repository's own history."""

    workspace: str
    head: str
    branch: str | None
    shallow: bool
    commits_asked: int
    since: str | None
    selection: QuestionSet
    retrievers: tuple[RetrieverResult, ...]
    generated: str  # ISO time, UTC
    warnings: tuple[str, ...] = field(default=())

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.selection.questions

    def group_size(self, group: str) -> int:
        if group == "all":
            return len(self.questions)
        return kinds(self.questions)[group]

    def to_json(self) -> dict:
        questions = self.questions
        rows = []
        for index, question in enumerate(questions):
            row = question.to_json()
            row["ranks"] = {r.name: r.answers[index].rank for r in self.retrievers}
            row["top"] = {r.name: list(r.answers[index].files) for r in self.retrievers}
            rows.append(row)
        return {
            "workspace": self.workspace,
            "head": self.head,
            "branch": self.branch,
            "shallow": self.shallow,
            "generated": self.generated,
            "mining": {
                "commits_asked": self.commits_asked,
                "since": self.since,
                "considered": self.selection.considered,
                "kept": len(questions),
                "dropped": {
                    reason: {"count": count, "why": DROP_REASONS[reason]}
                    for reason, count in self.selection.dropped.items()
                },
                "kinds": kinds(questions),
                "gold_files": GOLD_AT_HEAD,
            },
            "cutoff": CUTOFF,
            "retrievers": [
                {
                    "name": r.name,
                    "label": r.label,
                    "kind": r.kind,
                    "overrides": dict(r.overrides),
                    "index": r.index_line,
                    "notices": list(r.notices),
                    "scores": {
                        group: (m.to_json() if (m := r.metrics(questions, group)) else None)
                        for group in GROUPS
                    },
                }
                for r in self.retrievers
            ],
            "queries": rows,
            "warnings": list(self.warnings),
        }


def few_queries_warning(count: int) -> str | None:
    """The warning for a question set too small to trust, else None."""
    if count >= MIN_TRUSTED_QUERIES:
        return None
    return (
        f"Only {count} question(s) remain, fewer than {MIN_TRUSTED_QUERIES}: too few to trust "
        "the scores. Mine more with a larger --commits or an earlier --since."
    )
