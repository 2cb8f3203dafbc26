"""`wherein eval`: run the evaluation, print the table or the JSON, write the page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from wherein.config import Settings
from wherein.evaluation.evaluate import DEFAULT_COMMITS, EvalOptions, evaluate
from wherein.evaluation.table import format_report
from wherein.untrusted import json_text, one_line

__all__ = ["run_eval"]


def run_eval(
    args: argparse.Namespace, workspace: Path, settings: Settings, out: TextIO, err: TextIO
) -> int:
    """Run `wherein eval`; returns the exit code (1 when no question could be asked)."""
    options = EvalOptions(
        commits=DEFAULT_COMMITS if args.commits is None else args.commits,
        since=args.since,
        compare=tuple(args.compare),
        tiers=args.tiers,
    )
    report = evaluate(
        workspace,
        settings,
        options,
        err,
        say=lambda notice: print(f"wherein: {one_line(notice)}", file=err),
    )
    if args.html:
        from wherein.evaluation.page import write_page

        size = write_page(report, Path(args.html))
        print(f"wherein: wrote the HTML report to {args.html} ({size:,} bytes).", file=err)
    if args.json:
        out.write(json_text(report.to_json()) + "\n")
    else:
        out.write(format_report(report))
    for warning in report.warnings:
        print(f"wherein: {one_line(warning)}", file=err)
    if not report.questions:
        print(
            f"wherein: none of the {report.selection.considered} commit(s) read is usable as a "
            "question (reasons above); mine more with a larger --commits or an earlier --since.",
            file=err,
        )
        return 1
    return 0
