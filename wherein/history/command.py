"""`wherein history index|search`: call the library, format for a terminal or as JSON.

Results go to stdout; progress, the summary's notices and warnings go to stderr. Messages are
escaped onto one line (`untrusted.one_line`) and JSON written by `untrusted.json_text`, as the
rest of the CLI does: a transcript quotes files and tool output, which a repository wrote.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from wherein.config import Settings
from wherein.errors import UsageError
from wherein.untrusted import json_text, one_line

__all__ = ["run_history"]


def run_history(args: argparse.Namespace, settings: Settings, out: TextIO, err: TextIO) -> int:
    """Run one history action; returns the exit code. Raises only WhereinError subclasses."""
    if args.action == "index":
        return _index(settings, out, err)
    return _search(args, settings, out, err)


def _index(settings: Settings, out: TextIO, err: TextIO) -> int:
    from wherein.history.refresh import index_history
    from wherein.progress import ProgressDisplay

    with ProgressDisplay(err) as display:
        summary = index_history(settings, progress=display.update)
    for notice in summary.notices:
        print(f"wherein: {one_line(notice)}", file=err)
    if summary.cleared:
        print("wherein: the embedder changed, so the history vectors were rebuilt.", file=err)
    for item in summary.unreadable[:20]:
        print(f"wherein: unreadable, skipped: {one_line(item)}", file=err)
    if summary.transcripts == 0:
        from wherein.history.transcripts import searched_places

        places = one_line(", ".join(searched_places()))
        print(f"wherein: no Claude Code or Codex transcript found in {places}.", file=err)
    print(summary.line(), file=out)
    return 0


def _search(args: argparse.Namespace, settings: Settings, out: TextIO, err: TextIO) -> int:
    from wherein.history.quotes import quote_lines
    from wherein.history.search import search_history

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not allowed: ask for at least 1 result.")
    result = search_history(args.query, limit=args.limit, settings=settings)
    if args.json:
        out.write(json_text(result.to_json()) + "\n")
        return 0
    for warning in result.warnings:
        print(f"wherein: {one_line(warning)}", file=err)
    if not result.results:
        print("No earlier conversation matched.", file=out)
    for number, quote in enumerate(result.results):
        if number:
            out.write("\n")
        out.write("\n".join(quote_lines(quote)) + "\n")
    return 0
