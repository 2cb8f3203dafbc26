"""Functions an error node swallowed, found again by their header lines.

A misparse inside a function's body can leave the grammar unable to close that function:
Bash's grammar misreads an extglob in a parameter expansion (`"${v%]?(x)}"`), and
bash-completion's main file became one ERROR node over 89% of its bytes, where
`_known_hosts_real()` and the functions after it were loose tokens (`word ( ) {`): their
chunks named nothing. Inside a top-level error, a line that opens a function the way the
language's code is written (`name() {`, `function name`, the `{` alone on the next line)
is still that function's header, and the function runs to the `}` at the header's own
indentation, or until a line dedented past it or the next header at its indentation or
less. One pass over the error's lines, with a stack of open headers: linear in them.

Only Bash for now: its headers are whole lines nothing else looks like. Elsewhere the query
still finds most declarations inside the errors: of the functions in libxml2's C files with
an error, 37 of 1,658 went unnamed (macros in their signatures); of expo's Kotlin, the
classes of one file; of its Swift, none seen. Their headers span lines, in shapes a line
pattern would misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Unclosed", "unclosed_functions"]

# `name()`, `name () {`, `function name {`, `function name() {`, a one-liner
# `name() { ...; }`; a trailing comment allowed. Names as Bash allows them in practice.
# No two runs of blanks stand side by side with nothing certain between them: a line that
# fails to match would be tried at every split of its blanks between the two, in time
# square in its length (a header with 20,000 blanks before a stray word: 14 s).
_BASH_NAME = r"[A-Za-z_][\w:.@+-]*"
HEADERS = {
    "bash": re.compile(
        rf"(?P<indent>[ \t]*)(?:function[ \t]+(?P<keyword>{_BASH_NAME})(?:[ \t]*\(\))?"
        rf"|(?P<name>{_BASH_NAME})[ \t]*\(\))"
        r"[ \t]*(?:(?P<open>\{(?P<rest>.*\})?)[ \t]*)?(?:#.*)?"
    ),
}


@dataclass(frozen=True)
class Unclosed:
    """A function the grammar could not close: its 0-based rows, from its leading comment
    (`start`) through its header (`row`) and the rows its body opens after (`body`) to its
    last (`end`), and its name."""

    start: int
    row: int
    body: int
    end: int
    name: str


def unclosed_functions(root, lines: list[str], grammar: str | None, declared: set[int]):
    """The functions whose headers lie in a top-level error of the tree under `root` (the
    root itself, or its children), and on no row of `declared`, in file order."""
    header = HEADERS.get(grammar or "")
    if header is None or not root.has_error:
        return []
    errors = [root] if root.type == "ERROR" else [c for c in root.children if c.type == "ERROR"]
    found: list[Unclosed] = []
    for error in errors:
        last = min(error.end_point.row, len(lines) - 1)
        found.extend(_in_rows(lines, error.start_point.row, last, header, declared))
    found.sort(key=lambda u: u.row)
    return found


def _in_rows(lines, first: int, last: int, header, declared: set[int]) -> list[Unclosed]:
    found: list[Unclosed] = []
    open_: list[tuple[int, int, int, str]] = []  # (indent, header row, body row, name)

    def close(end: int) -> None:
        indent, row, body, name = open_.pop()
        while end > body and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
            end -= 1  # blank lines and the next header's comment are not the body's
        if row not in declared:
            found.append(Unclosed(_lead(lines, row, first), row, body, max(end, body), name))

    for row in range(first, last + 1):
        line = lines[row]
        text = line.lstrip()
        if not text or text.startswith("#"):
            continue
        indent = len(line) - len(text)
        match = header.fullmatch(line)
        if match:
            while open_ and open_[-1][0] >= indent:
                close(row - 1)
            name = match.group("keyword") or match.group("name")
            if match.group("rest") is not None:  # a one-liner: closed on its own line
                if row not in declared:
                    found.append(Unclosed(_lead(lines, row, first), row, row, row, name))
                continue
            body = row
            if match.group("open") is None:  # its `{` alone on the next line, or no body
                if row + 1 > last or lines[row + 1].strip() != "{":
                    continue
                body = row + 1
            open_.append((indent, row, body, name))
            continue
        while open_ and open_[-1][0] > indent:  # dedented past the header: it ended
            close(row - 1)
        if open_ and open_[-1][0] == indent and text.startswith("}"):
            close(row)
    while open_:
        close(last)
    return found


def _lead(lines: list[str], row: int, first: int) -> int:
    """The first row of the comment lines right above `row` (within the error), or `row`."""
    start = row
    while start > first and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start
