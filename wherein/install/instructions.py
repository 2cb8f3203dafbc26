"""The short note in CLAUDE.md / AGENTS.md telling the agent when to call `recall`.

Written only with `wherein install --with-instructions`, between two HTML comments (invisible
when the Markdown is rendered) so `wherein uninstall` removes exactly it. The rules mirror the
tool's own description: recall to find where something lives, grep for a known symbol, no
re-reading of a range recall just returned.
"""

from __future__ import annotations

from wherein.install.files import match_newlines, newline_of

__all__ = ["BEGIN", "END", "SNIPPET", "with_snippet", "without_snippet"]

BEGIN = "<!-- wherein:begin (added by 'wherein install --with-instructions') -->"
END = "<!-- wherein:end -->"
_BEGIN_PREFIX = "<!-- wherein:begin"

SNIPPET = f"""{BEGIN}
## Finding code: the `recall` tool (wherein)

- Before opening files to find where something is handled, call `recall` with a few words
  ("where are retries handled"); it answers with ranked excerpts, each a path and line range.
- For an exact symbol or string you already know, grep for it instead.
- Don't re-read a range `recall` just returned; open a file only for the lines you still need.
{END}
"""


def with_snippet(text: str | None) -> str:
    """`text` with the snippet: replaced in place if present, else appended after a blank line."""
    current = text or ""
    span = _find(current)
    if span is not None:
        start, end = span
        return match_newlines(current, current[:start] + SNIPPET + current[end:])
    if not current:
        return SNIPPET
    # One blank line before the snippet; `without_snippet` takes exactly that line back.
    separator = "\n" if current.endswith("\n") else "\n\n"
    return match_newlines(current, current + separator + SNIPPET)


def without_snippet(text: str) -> str:
    """`text` without the snippet and the blank line `with_snippet` put before it."""
    span = _find(text)
    if span is None:
        return text
    start, end = span
    before, after = text[:start], text[end:]
    newline = newline_of(text)
    if before.endswith(newline * 2):
        before = before[: -len(newline)]
    return before + after


def _find(text: str) -> tuple[int, int] | None:
    """The snippet's span, through the newline after its end marker."""
    start = text.find(_BEGIN_PREFIX)
    if start == -1:
        return None
    end = text.find(END, start)
    if end == -1:
        return None
    end += len(END)
    for newline in ("\r\n", "\n"):
        if text.startswith(newline, end):
            return start, end + len(newline)
    return start, end
