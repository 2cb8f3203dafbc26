"""The answer key: questions from commit subjects, answered by the source files they changed.

A commit is kept when its subject is a usable question (`filters`) and its change modifies 1
to 3 source files inside the workspace that still exist at HEAD. Paths are followed through
later renames: the history is read newest first, and each rename, deletion or addition says
what an older commit's path is called at HEAD, or that it is gone. On a history with
branches, a change dated after a rename on another branch is not followed (it is counted as
gone); every other commit is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wherein.evaluation.filters import (
    DROP_REASONS,
    MAX_SUBJECT_CHARS,
    clean_subject,
    is_source_file,
    subject_drop_reason,
)
from wherein.evaluation.lexical import LEXICAL, SEMANTIC, lexical_reason
from wherein.evaluation.mining import Commit, History

__all__ = [
    "MAX_GOLD_FILES",
    "Question",
    "QuestionSet",
    "classify",
    "kinds",
    "select_questions",
]

# A change of more files is a refactoring or a sweep: no one place answers its subject.
MAX_GOLD_FILES = 3
MODIFIED = frozenset("MRT")


@dataclass(frozen=True)
class Question:
    """One question and the files that answer it (relative to the workspace)."""

    commit: str
    time: int
    subject: str
    text: str
    gold: frozenset[str]
    kind: str = SEMANTIC  # LEXICAL when the text names a gold identifier or path
    lexical_reason: str | None = None

    def to_json(self) -> dict:
        return {
            "commit": self.commit,
            "time": self.time,
            "subject": self.subject,
            "query": self.text,
            "gold": sorted(self.gold),
            "kind": self.kind,
            "lexical_reason": self.lexical_reason,
        }


@dataclass(frozen=True)
class QuestionSet:
    """The questions kept, and how many commits were dropped for each reason."""

    considered: int
    questions: tuple[Question, ...]
    dropped: dict[str, int]  # reason (a DROP_REASONS key) -> commits, in DROP_REASONS order

    def without(self, reason: str, keep: Callable[[Question], Question | None]) -> QuestionSet:
        """The set with `keep` applied to each question; those it returns None for are
        counted as dropped for `reason`."""
        kept = []
        for question in self.questions:
            changed = keep(question)
            if changed is not None:
                kept.append(changed)
        dropped = Counter(self.dropped)
        dropped[reason] += len(self.questions) - len(kept)
        return QuestionSet(self.considered, tuple(kept), _ordered(dropped))


def select_questions(history: History) -> QuestionSet:
    """Every commit of `history` as a question, or the reason it is not one."""
    fate: dict[str, str | None] = {}  # a path in older commits -> its path at HEAD, or gone
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    kept: list[Question] = []
    for commit in history.commits:
        reason, question = _judge(commit, history, fate, seen)
        _follow(commit, fate)
        if reason is not None:
            dropped[reason] += 1
        elif question is not None:
            seen.add(question.text.casefold())
            kept.append(question)
    return QuestionSet(len(history.commits), tuple(kept), _ordered(dropped))


def classify(question: Question, texts: Callable[[str], str | None]) -> Question:
    """The question with its kind: lexical when it names a gold identifier or path."""
    gold = sorted(question.gold)
    bodies = {path: body for path in gold if (body := texts(path)) is not None}
    reason = lexical_reason(question.text, gold, bodies)
    return Question(
        question.commit,
        question.time,
        question.subject,
        question.text,
        question.gold,
        LEXICAL if reason else SEMANTIC,
        reason,
    )


def _judge(
    commit: Commit, history: History, fate: dict[str, str | None], seen: set[str]
) -> tuple[str | None, Question | None]:
    if commit.subject is None:
        return "undecodable", None
    if len(commit.subject) > MAX_SUBJECT_CHARS:
        return "long", None
    text, reason = clean_subject(commit.subject)
    reason = reason or subject_drop_reason(text)
    if reason is not None:
        return reason, None
    sources = [change for change in commit.changes if is_source_file(change.path)]
    if not sources:
        return "no_source", None
    if len(sources) > MAX_GOLD_FILES:
        return "too_many", None
    if any(change.status not in MODIFIED for change in sources):
        return "adds_or_deletes", None
    gold = []
    for change in sources:
        now = fate.get(change.path, change.path)
        if now is None or now not in history.head_files:
            return "gone", None
        if not now.startswith(history.prefix):
            return "outside", None
        gold.append(now[len(history.prefix) :])
    if text.casefold() in seen:
        return "duplicate", None
    return None, Question(commit.sha, commit.time, commit.subject, text, frozenset(gold))


def _follow(commit: Commit, fate: dict[str, str | None]) -> None:
    """Update what older commits' paths are called at HEAD, after `commit`'s own changes."""
    renamed = [
        (change.old_path, fate.get(change.path, change.path))
        for change in commit.changes
        if change.status == "R" and change.old_path is not None
    ]
    for change in commit.changes:
        if change.status in "ACDR":  # before this commit nothing was there, or it was removed
            fate[change.path] = None
    for old_path, at_head in renamed:
        fate[old_path] = at_head


def _ordered(counts: Counter[str] | dict[str, int]) -> dict[str, int]:
    return {reason: counts[reason] for reason in DROP_REASONS if counts.get(reason)}


def kinds(questions: Sequence[Question]) -> dict[str, int]:
    """How many questions of each kind."""
    counted = Counter(question.kind for question in questions)
    return {kind: counted.get(kind, 0) for kind in (LEXICAL, SEMANTIC)}
