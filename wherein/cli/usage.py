"""The commands that read what agent sessions cost: `baseline` and `statusline`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wherein.cli.output import can_encode, dump, say
from wherein.untrusted import visible

__all__ = ["handle_baseline", "handle_statusline"]


def handle_baseline(args: argparse.Namespace) -> int:
    from wherein.meter import build_baseline, format_report

    summary = build_baseline(
        args.ledger or (),
        since=args.since,
        until=args.until,
        project=args.project,
        with_days=bool(args.html),
        cache=not args.no_cache,
        by=args.by,
    )
    if args.html:
        from wherein.meter.html import write_html

        size = write_html(summary, Path(args.html))
        say(f"wrote the HTML report to {args.html} ({size:,} bytes).")
    if args.json:
        dump(summary)  # built whole before writing: a failure never leaves half a JSON
    elif args.by:
        from wherein.meter.report import format_breakdown

        sys.stdout.write(visible(format_breakdown(summary)))
    else:
        ascii_only = not can_encode(sys.stdout, "\u2588\u2589")  # the step chart's blocks
        sys.stdout.write(visible(format_report(summary, ascii_only=ascii_only)))
    return 0


def handle_statusline(args: argparse.Namespace | None) -> int:
    from wherein.meter.statusline import run_statusline

    return run_statusline(sys.stdin.buffer, sys.stdout)
