"""Markdown's ATX headings, found as CommonMark finds them: never inside fenced code."""

from __future__ import annotations

import re

__all__ = ["heading_rows", "heading_text"]

_HEADING = re.compile(r"^ {0,3}#{1,6}\s+\S")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def heading_text(line: str) -> str:
    """The words of an ATX heading line, without its `#` marks.

    An optional closing sequence (`## Title ##`) needs a space before it; `C#` keeps its
    hash. Cut with `rstrip`, not a pattern: `\\s+#+\\s*$` searched a heading of many
    spaces and no closing hash in quadratic time (a hostile megabyte, hours).
    """
    words = line.strip().lstrip("#")
    unclosed = words.rstrip("#")
    if unclosed != words and (not unclosed or unclosed[-1].isspace()):
        words = unclosed
    return words.strip()


def heading_rows(lines: list[str]) -> list[int]:
    """Rows of ATX headings outside fenced code (a `# comment` in a shell block is not one)."""
    rows = []
    fence = ""  # the opening marker while inside a fenced block
    for row, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence:
            # CommonMark: the closing fence uses the same character, at least as many,
            # and nothing else.
            marker = match.group(1) if match else ""
            closes = marker[:1] == fence[0] and len(marker) >= len(fence)
            if closes and not line.strip().strip(fence[0]):
                fence = ""
        elif match:
            fence = match.group(1)
        elif _HEADING.match(line):
            rows.append(row)
    return rows
