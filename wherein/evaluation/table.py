"""`wherein eval` on a terminal: where the questions came from, then one table per kind."""

from __future__ import annotations

from wherein.evaluation.filters import DROP_REASONS
from wherein.evaluation.questions import kinds
from wherein.evaluation.report import GOLD_AT_HEAD, GROUPS, MIN_TRUSTED_QUERIES, EvalReport
from wherein.evaluation.scoring import CUTOFF, Metrics
from wherein.untrusted import one_line

__all__ = ["format_report", "funnel_lines", "ratio_text"]

GROUP_TITLES = {
    "all": "all questions",
    "lexical": "lexical (the question names a gold identifier or path)",
    "semantic": "semantic (it does not: what search by meaning is for)",
}
COLUMNS = ("R@1", "R@5", f"R@{CUTOFF}", f"MRR@{CUTOFF}", "chars/q", "files/q", "context", "p50")


def funnel_lines(report: EvalReport) -> list[str]:
    """Where the questions came from: commits read, kept, and why the rest were dropped."""
    selection = report.selection
    since = f", since {report.since}" if report.since else ""
    # git allows any byte past ASCII in a branch name: a bidi override, a C1 control.
    where = one_line(report.branch) if report.branch else f"detached HEAD {report.head[:12]}"
    dropped = sum(selection.dropped.values())
    lines = [
        f"History of {report.workspace} at {report.head[:12]} ({where}): "
        f"{selection.considered} non-merge commit(s) read (--commits {report.commits_asked}"
        f"{since}); {len(selection.questions)} kept as questions, {dropped} dropped:",
    ]
    width = max((len(f"{n:,}") for n in selection.dropped.values()), default=1)
    for reason, count in selection.dropped.items():
        lines.append(f"  {count:>{width},}  {DROP_REASONS[reason]}")
    lines.append(GOLD_AT_HEAD)
    return lines


def ratio_text(metrics: Metrics) -> str:
    """Whole files against what was returned: `12.3x less`, or `whole files`."""
    if metrics.returned_chars <= 0:
        return "-"
    ratio = metrics.file_chars / metrics.returned_chars
    if ratio < 1.05:
        return "whole files"
    return f"{ratio:.1f}x less"


def _cell(value: float) -> str:
    return f"{value:.3f}".lstrip("0") if value < 1 else "1.000"


def format_report(report: EvalReport) -> str:
    """The report as terminal text, ending with a newline."""
    lines = funnel_lines(report)
    questions = report.questions
    if not questions or not report.retrievers:
        return "\n".join(lines) + "\n"
    counted = kinds(questions)
    lines += [
        "",
        f"{len(questions)} questions ({counted['lexical']} lexical, {counted['semantic']} "
        f"semantic); first {CUTOFF} results as distinct files, release notes dropped; chars/q "
        "is what the results hand back, files/q the whole files they come from.",
    ]
    width = max(len(r.label) for r in report.retrievers) + 2
    head = f"{'':{width}}" + "".join(f"{c:>8}" for c in COLUMNS[:4])
    head += f"{COLUMNS[4]:>10}{COLUMNS[5]:>10}  {COLUMNS[6]:<12}{'p50 ms':>7}"
    for group in GROUPS:
        size = report.group_size(group)
        if not size:
            continue
        few = ""
        if size < MIN_TRUSTED_QUERIES:
            few = f", fewer than {MIN_TRUSTED_QUERIES}: too few to trust"
        lines += ["", f"{GROUP_TITLES[group]}: {size}{few}", head]
        for result in report.retrievers:
            metrics = result.metrics(questions, group)
            if metrics is None:
                continue
            row = f"  {result.label:<{width - 2}}"
            scores = (metrics.r1, metrics.r5, metrics.r10, metrics.mrr)
            row += "".join(f"{_cell(value):>8}" for value in scores)
            row += f"{metrics.returned_chars:>10,.0f}{metrics.file_chars:>10,.0f}  "
            row += f"{ratio_text(metrics):<12}{metrics.p50_ms:>7.1f}"
            lines.append(row)
    return "\n".join(lines) + "\n"
