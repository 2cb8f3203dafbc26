"""Exact and regex modes: the chunks whose text holds a literal string or matches a pattern.

The set of matching chunks becomes the candidates every ranker is restricted to, and how often
each chunk matches is one more order for the fusion (`code_ranking.rank_chunks`).

Exact (`--exact TEXT`): case-sensitive, as `grep -F`. The lexical index stores each chunk's
tokens, not its text, so it cannot answer "contains this substring" alone; SQLite's `instr`
over the chunk texts can. When the literal holds a word bounded on both sides inside it
(`__init__` in `def __init__(self`), every chunk that contains the literal contains that whole
word, so FTS5 narrows the scan to the chunks holding it first. Measured on the standard
library (47,534 chunks, 37 MB of text; scripts/bench_grep.py): `instr` over every chunk took
60-100 ms, FTS5 then `instr` 3-8 ms; a bare identifier (`getaddrinfo`) has no bounded word and
takes the scan. Both are exact: FTS5 only picks which texts `instr` reads.

Regex (`--regex PATTERN`): Python `re` over each chunk's text, under a time bound. A pattern is
the caller's, and a nested repeat such as `(a+)+$` backtracks for exponential time, so the scan
runs under an interval timer in the main thread (`re` checks for signals as it backtracks) and
stops with a usage error past REGEX_BUDGET_S; elsewhere (a worker thread) it is refused.
"""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from wherein.errors import UsageError
from wherein.untrusted import echo

if TYPE_CHECKING:  # the caller's: a check of the arguments alone loads neither
    import sqlite3

    import numpy as np

__all__ = [
    "EXACT",
    "MAX_PATTERN_CHARS",
    "REGEX",
    "REGEX_BUDGET_S",
    "TextMatch",
    "bounded_words",
    "exact_match",
    "regex_match",
]

EXACT = "exact"
REGEX = "regex"
# A literal or pattern longer than this is a file, not something to find.
MAX_PATTERN_CHARS = 1000
# The whole regex scan of the standard library takes ~0.2 s; a pattern still running after
# this long is backtracking, not searching.
REGEX_BUDGET_S = 5.0
# A match count above this says nothing more about a chunk than this does.
MAX_COUNTED = 1000

T = TypeVar("T")

_RUN = re.compile(r"\w+")
# As `ranking.tokens` finds words: the lexical index holds each one lower-cased.
_WORD = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class TextMatch:
    """A literal (`exact`) or a pattern (`regex`) that a chunk's text must hold."""

    kind: str
    text: str

    def counts(self, conn: sqlite3.Connection, within: np.ndarray | None) -> dict[int, int]:
        """{chunk id: times it matches} for the chunks that match, among `within` if given.

        Raises:
            UsageError: a regex ran past REGEX_BUDGET_S, or was run outside the main thread.
        """
        if self.kind == EXACT:
            return _exact_counts(conn, self.text, within)
        return _regex_counts(conn, self.text, within)


def exact_match(literal: str, name: str = "--exact") -> TextMatch:
    """A checked literal; `name` is how the caller's user spelled the option.

    Raises:
        UsageError: the literal is empty or longer than MAX_PATTERN_CHARS.
    """
    _check_length(literal, name)
    return TextMatch(EXACT, literal)


def regex_match(pattern: str, name: str = "--regex") -> TextMatch:
    """A checked pattern (Python `re` syntax, case-sensitive unless it says `(?i)`).

    Raises:
        UsageError: the pattern is empty, too long, does not compile, or matches the empty
            string (it would match every chunk, and say nothing).
    """
    _check_length(pattern, name)
    try:
        compiled = re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as err:
        raise UsageError(
            f"{name} {echo(pattern)} is not a regular expression Python reads ({err})."
        ) from None
    if compiled.search("") is not None:
        raise UsageError(
            f"{name} {echo(pattern)} matches an empty string, so every chunk: make it "
            "match at least one character."
        )
    return TextMatch(REGEX, pattern)


def _check_length(text: str, name: str) -> None:
    if not text:
        raise UsageError(f"{name} is empty: give the text to find.")
    if len(text) > MAX_PATTERN_CHARS:
        raise UsageError(
            f"{name} {echo(text)} is {len(text)} characters long; give at most {MAX_PATTERN_CHARS}."
        )


def bounded_words(literal: str) -> list[str]:
    """The lexical terms every chunk containing `literal` must hold: the words of each `\\w` run
    that has a non-word character on both sides inside the literal, lower-cased."""
    terms = []
    for run in _RUN.finditer(literal):
        if run.start() > 0 and run.end() < len(literal):
            terms.extend(word.group().lower() for word in _WORD.finditer(run.group()))
    return list(dict.fromkeys(terms))


def _exact_counts(
    conn: sqlite3.Connection, literal: str, within: np.ndarray | None
) -> dict[int, int]:
    # Occurrences without reading the text into Python: what `replace` removed, per length.
    sql = (
        "SELECT c.id, (length(c.text) - length(replace(c.text, ?1, ''))) / length(?1) "
        "FROM chunks c WHERE instr(c.text, ?1) > 0"
    )
    args: list = [literal]
    terms = bounded_words(literal)
    if terms:
        args.append(" AND ".join('"' + term.replace('"', '""') + '"' for term in terms))
        sql += f" AND c.id IN (SELECT rowid FROM lexical WHERE lexical MATCH ?{len(args)})"
    if within is not None:
        args.append(json.dumps(within.tolist()))
        sql += f" AND c.id IN (SELECT value FROM json_each(?{len(args)}))"
    return {int(cid): min(int(count), MAX_COUNTED) for cid, count in conn.execute(sql, args)}


class _Overrun(Exception):
    """Raised by the interval timer inside a regex scan that ran past its budget."""


def _regex_counts(
    conn: sqlite3.Connection, pattern: str, within: np.ndarray | None
) -> dict[int, int]:
    compiled = re.compile(pattern)
    sql, args = "SELECT c.id, c.text FROM chunks c", []
    if within is not None:
        sql += " WHERE c.id IN (SELECT value FROM json_each(?))"
        args.append(json.dumps(within.tolist()))

    def scan() -> dict[int, int]:
        found: dict[int, int] = {}
        cursor = conn.execute(sql, args)
        try:
            for cid, text in cursor:
                count = 0
                for _ in compiled.finditer(text):
                    count += 1
                    if count >= MAX_COUNTED:
                        break
                if count:
                    found[int(cid)] = count
        finally:
            cursor.close()
        return found

    return _time_bound(scan, pattern, REGEX_BUDGET_S)


def _time_bound(work: Callable[[], T], pattern: str, seconds: float) -> T:
    """`work()` under a SIGALRM that interrupts a backtracking match, stopped past `seconds`.

    Raises:
        UsageError: `work` ran past `seconds`, or this is not the main thread (where alone a
            signal can interrupt `re`, so where alone a hostile pattern can be stopped).
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        raise UsageError(
            "A regex search runs only in the wherein command itself, where a pattern that "
            "takes too long can be stopped; use exact mode here instead."
        )

    def overrun(_signum, _frame) -> None:
        raise _Overrun

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, overrun)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, seconds)
            return work()
        finally:  # the timer may fire here still: the handler below catches that too
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Overrun:
        raise UsageError(
            f"--regex {echo(pattern)} ran for more than {seconds:g} s "
            f"({time.monotonic() - started:.1f} s) and was stopped: a nested repeat such as "
            "(a+)+ backtracks for exponential time; make the pattern more specific."
        ) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
