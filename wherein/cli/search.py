"""The commands that find: `index`, `search`, `related`, `history` and `eval`."""

from __future__ import annotations

import argparse
import sys

from wherein.cli.arguments import settings_for, workspace_of
from wherein.cli.output import dump, say, show
from wherein.errors import UsageError

__all__ = ["handle_eval", "handle_history", "handle_index", "handle_related", "handle_search"]


def handle_index(args: argparse.Namespace) -> int:
    from wherein.indexing import build_index
    from wherein.progress import ProgressDisplay

    workspace = workspace_of(args)
    settings = settings_for(workspace)
    from wherein.roots import configured_roots
    from wherein.scope import resolve_scope

    roots = configured_roots(workspace, settings).extra
    scope = resolve_scope(workspace, args.focus, settings, roots=roots)
    if scope.notice:
        say(scope.notice)

    def waiting() -> None:
        say(f"another process is indexing {workspace}; waiting for it to finish.")

    with ProgressDisplay(sys.stderr) as display:
        summary = build_index(
            workspace, settings, progress=display.update, on_wait=waiting, focus=scope.focus
        )
    for notice in summary.notices:
        say(notice)
    for item in summary.report.unreadable[:20]:
        say(f"unreadable, skipped: {item}")
    show(summary.line())
    return 0


def handle_search(args: argparse.Namespace) -> int:
    from wherein.progress import ProgressDisplay
    from wherein.result_options import result_filters, text_match
    from wherein.search import run_search

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not allowed: ask for at least 1 result.")
    files, match = result_filters(args), text_match(args)
    workspace = workspace_of(args)
    settings = settings_for(workspace)
    # A bar on a terminal while a first search reads the files (a minute for a large tree);
    # drawn only once there is something to read, so a search that has nothing to do pays
    # no import of rich.
    with ProgressDisplay(sys.stderr, lazy=True) as display:
        result = run_search(
            args.query,
            workspace=workspace,
            settings=settings,
            limit=args.limit,
            path=args.path,
            focus=args.focus,
            files=files,
            match=match,
            excerpt_lines=args.lines,
            progress=display.update if display.enabled else None,
        )
    return _print_result(result, args)


def handle_related(args: argparse.Namespace) -> int:
    from wherein.result_options import result_filters
    from wherein.search import run_related

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not allowed: ask for at least 1 result.")
    files = result_filters(args)
    workspace = workspace_of(args)
    result = run_related(
        args.place,
        workspace=workspace,
        settings=settings_for(workspace),
        limit=args.limit,
        path=args.path,
        focus=args.focus,
        files=files,
        excerpt_lines=args.lines,
    )
    return _print_result(result, args)


def _print_result(result, args: argparse.Namespace) -> int:
    """A search's results in the form asked for: text, one JSON object, JSON lines or files."""
    if args.json:
        dump(result.to_json())
        return 0
    from wherein.present import print_results, result_notes

    for warning in result.warnings:
        say(warning)
    if args.jsonl or args.files_only:
        from wherein.line_output import print_files, print_jsonl

        (print_jsonl if args.jsonl else print_files)(result, sys.stdout)
    else:
        if result.origin is not None:
            names = ", ".join(result.origin.symbols[:3])
            show(f"Like {result.origin.label}" + (f"  {names}" if names else "") + ":")
        print_results(result, sys.stdout)
    for note in result_notes(result):  # after the results, on stderr with the warnings
        say(note)
    return 0


def handle_history(args: argparse.Namespace) -> int:
    from wherein.history.command import run_history

    return run_history(args, settings_for(None), sys.stdout, sys.stderr)


def handle_eval(args: argparse.Namespace) -> int:
    from wherein.evaluation.command import run_eval

    workspace = workspace_of(args)
    return run_eval(args, workspace, settings_for(workspace), sys.stdout, sys.stderr)
