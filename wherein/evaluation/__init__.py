"""Evaluation: how well search works on a repository, measured from its own git history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.evaluation.evaluate import EvalOptions, evaluate
    from wherein.evaluation.mining import History, read_history
    from wherein.evaluation.questions import Question, QuestionSet, select_questions
    from wherein.evaluation.report import EvalReport
    from wherein.evaluation.table import format_report

__all__ = [
    "EvalOptions",
    "EvalReport",
    "History",
    "Question",
    "QuestionSet",
    "evaluate",
    "format_report",
    "read_history",
    "select_questions",
]

# Mining alone (the benchmark, `--json` of a history) needs no index or model code.
__getattr__, __dir__ = lazy_members(
    __name__,
    {
        "EvalOptions": "evaluate",
        "evaluate": "evaluate",
        "History": "mining",
        "read_history": "mining",
        "Question": "questions",
        "QuestionSet": "questions",
        "select_questions": "questions",
        "EvalReport": "report",
        "format_report": "table",
    },
)
