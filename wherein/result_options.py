"""The command-line options `search` and `related` share: filters, excerpt length, output form.

Parsing only: each option is checked and turned into the library's own records here
(`file_filter.FileFilter`, `text_match.TextMatch`), so both commands refuse a bad value with
the same sentence before any index is opened. Nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse

from wherein.errors import UsageError

__all__ = ["add_result_options", "result_filters", "text_match"]

# The bounds `search.excerpt_lines` has in the settings (`config.KEYS`), for one search.
MIN_LINES = 1
MAX_LINES = 2000


def add_result_options(parser: argparse.ArgumentParser) -> None:
    """Add the filter, excerpt and output options to a `search`-like command."""
    parser.add_argument(
        "--lang",
        action="append",
        metavar="LANG",
        help="only files in this language: python, typescript, ... or an extension (repeatable)",
    )
    parser.add_argument(
        "--glob",
        action="append",
        metavar="PATTERN",
        help="only files matching this gitignore-style pattern, such as '*.py' (repeatable)",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="no files matching this gitignore-style pattern, such as 'tests/' (repeatable)",
    )
    parser.add_argument(
        "--lines",
        "-C",
        type=int,
        metavar="N",
        help="show at most N lines of each excerpt (default: search.excerpt_lines, 40)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument(
        "--jsonl", action="store_true", help="print each result as one JSON object per line"
    )
    output.add_argument(
        "-l",
        "--files-only",
        action="store_true",
        help="print only the results' files, one per line, best first",
    )


def result_filters(args: argparse.Namespace):
    """The file filter the options ask for, or None; checks `--lines` on the way.

    Raises:
        UsageError: a bad language, pattern or line count.
    """
    if args.lines is not None and not MIN_LINES <= args.lines <= MAX_LINES:
        raise UsageError(
            f"--lines {args.lines} is not allowed: ask for {MIN_LINES} to {MAX_LINES} lines."
        )
    if not (args.lang or args.glob or args.exclude):
        return None
    from wherein.file_filter import file_filter

    return file_filter(args.lang or (), args.glob or (), args.exclude or ())


def text_match(args: argparse.Namespace):
    """The exact or regex match `search` asks for, or None; a query or a match is required.

    Raises:
        UsageError: no query and no match, or a match that cannot be used.
    """
    from wherein.text_match import exact_match, regex_match

    if args.exact is not None:
        return exact_match(args.exact)
    if args.regex is not None:
        return regex_match(args.regex)
    if not args.query.split():
        raise UsageError(
            "The query is empty. Say what you are looking for, in words or a name, or give "
            "--exact TEXT or --regex PATTERN."
        )
    return None
