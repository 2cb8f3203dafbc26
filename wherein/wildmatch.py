"""git's wildmatch, compiled to regular expressions whose stars are never re-tried.

A repository plants its own ignore files, so no line may be able to stall the walk.
Translating globs to regular expressions naively (as `pathspec` does) lets `*a*a*a*a*b`
backtrack exponentially on a long name. Here each glob is compiled, following git's own
`wildmatch.c` byte for byte, into a regular expression whose stars are never re-tried: each
`*` takes the leftmost place where the fixed run after it fits, each `**/` the first folder
where the block after it fits, and that choice is committed (a lookahead holding a group,
then a back reference to it: the atomic group Python 3.10 can spell). The greedy choice is
exact, not an approximation: what lies between two stars has a fixed width, so its leftmost
fit leaves the most room for the rest. Patterns are bytes, as in git: `?` is one byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "BACKSLASH",
    "MAX_LINE_WILDCARDS",
    "STAR",
    "TooManyWildcards",
    "Unmatchable",
    "compile_items",
    "glob_items",
    "simple_length",
]

# A cap git does not have, far above what real files hold, that bounds what a planted line
# can cost: each star costs compile time and one committed search per match. The most stars
# seen in one line of GitHub's templates is 4 (Node's `report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json`).
MAX_LINE_WILDCARDS = 32  # `*` or `**` runs in one line

_SLASH = 0x2F
BACKSLASH = 0x5C
STAR = 0x2A
_QUESTION = 0x3F
_LBRACKET = 0x5B
_RBRACKET = 0x5D
_COLON = 0x3A
_DASH = 0x2D
_BANG = 0x21
_CARET = 0x5E
# git's is_glob_special: a pattern up to the first of these is compared as plain bytes.
_GLOB_SPECIAL = b"*?[\\"

# git's [:class:] names over its own ASCII-only ctype table (ctype.c, git-compat-util.h):
# isspace is tab, newline, CR and space, not VT or FF; nothing at or above 0x80 is in a class.
_ALPHA = frozenset(range(0x41, 0x5B)) | frozenset(range(0x61, 0x7B))
_DIGIT = frozenset(range(0x30, 0x3A))
_GRAPH = frozenset(range(0x21, 0x7F))
_CLASSES = {
    b"alnum": _ALPHA | _DIGIT,
    b"alpha": _ALPHA,
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset(range(0x01, 0x20)) | {0x7F},
    b"digit": _DIGIT,
    b"graph": _GRAPH,
    b"lower": frozenset(range(0x61, 0x7B)),
    b"print": _GRAPH | {0x20},
    b"punct": _GRAPH - _ALPHA - _DIGIT,
    b"space": frozenset(b"\t\n\r "),
    b"upper": frozenset(range(0x41, 0x5B)),
    b"xdigit": _DIGIT | frozenset(b"abcdefABCDEF"),
}

# Items of a translated pattern besides fixed one-byte fragments.
_STAR_ITEM = "*"  # any run of bytes within one path segment
_DIRS = "**/"  # zero or more whole folders: `(.*/)?`
_SOME_DIRS = "**\\/"  # one or more: `.*/`
_ANY = "**"  # at the end: everything, slashes included


class Unmatchable(ValueError):
    """A line git keeps that can match no path (`!`, `foo\\`, `[[:nope:]]`, `[abc`)."""


class TooManyWildcards(ValueError):
    """A line with more than MAX_LINE_WILDCARDS runs of `*`."""


def simple_length(pattern: bytes, start: int = 0) -> int:
    """git's simple_length from `start`: the end of the run before the first glob byte."""
    for i in range(start, len(pattern)):
        if pattern[i] in _GLOB_SPECIAL:
            return i
    return len(pattern)


def glob_items(pattern: bytes, *, pathname: bool) -> tuple[list, int]:
    """The pattern as regex fragments for fixed bytes and the star items, as wildmatch reads
    it (with WM_PATHNAME for path rules; without, for basename rules, `**` is `*`); and the
    length of the shortest text it can match."""
    items: list = []
    stars = shortest = 0
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == STAR:
            j = i
            while j < n and pattern[j] == STAR:
                j += 1
            stars += 1
            if stars > MAX_LINE_WILDCARDS:
                raise TooManyWildcards(pattern)
            double = pathname and j - i >= 2 and (i == 0 or pattern[i - 1] == _SLASH)
            if double and j == n:
                item = _ANY
            elif double and pattern[j] == _SLASH:
                item, j = _DIRS, j + 1
            elif double and pattern[j : j + 2] == b"\\/":
                item, j = _SOME_DIRS, j + 2
                shortest += 1
            else:
                item = _STAR_ITEM
            _add_star(items, item)
            i = j
            continue
        if c == BACKSLASH:
            if i + 1 >= n:
                raise Unmatchable(pattern)  # a trailing backslash matches nothing
            items.append(re.escape(pattern[i + 1 : i + 2]))
            i += 2
        elif c == _QUESTION:
            items.append(b"[^/]" if pathname else b".")
            i += 1
        elif c == _LBRACKET:
            fragment, i = _bracket(pattern, i + 1, pathname)
            items.append(fragment)
        else:
            items.append(re.escape(pattern[i : i + 1]))
            i += 1
        shortest += 1
    return items, shortest


def _add_star(items: list, item: str) -> None:
    """Append a star item, merging it with a star item before it that says the same:
    `**/**/` is `**/`, and `**/` beside `**\\/` is `**\\/` (a planted run of them stays one)."""
    last = items[-1] if items else None
    if item is _STAR_ITEM and last is _STAR_ITEM:
        return
    if last in (_DIRS, _SOME_DIRS) and item in (_DIRS, _SOME_DIRS, _ANY):
        if last is _SOME_DIRS and item is not _DIRS:
            items.append(item)
        elif last is _DIRS:
            items[-1] = item
        return
    items.append(item)


def _bracket(pattern: bytes, i: int, pathname: bool) -> tuple[bytes, int]:
    """The class `[...]` that starts at `i` (just past `[`), as wildmatch parses it, as a
    regex fragment; and the index past its `]`."""
    n = len(pattern)

    def at(k: int) -> int:
        return pattern[k] if k < n else 0

    p = i
    ch = at(p)
    if ch == _CARET:
        ch = _BANG
    negated = ch == _BANG
    if negated:
        p += 1
        ch = at(p)
    members: set[int] = set()
    prev = 0
    while True:
        if not ch:
            raise Unmatchable(pattern)  # no closing bracket
        if ch == BACKSLASH:
            p += 1
            ch = at(p)
            if not ch:
                raise Unmatchable(pattern)
            members.add(ch)
        elif ch == _DASH and prev and at(p + 1) and at(p + 1) != _RBRACKET:
            p += 1
            ch = at(p)
            if ch == BACKSLASH:
                p += 1
                ch = at(p)
                if not ch:
                    raise Unmatchable(pattern)
            members.update(range(prev, ch + 1))
            ch = 0
        elif ch == _LBRACKET and at(p + 1) == _COLON:
            start = p = p + 2
            while at(p) and at(p) != _RBRACKET:
                p += 1
            if not at(p):
                raise Unmatchable(pattern)
            if p - start - 1 < 0 or pattern[p - 1] != _COLON:
                p = start - 2  # not a `[:name:]`: the `[` is an ordinary member
                ch = _LBRACKET
                members.add(ch)
            else:
                name = pattern[start : p - 1]
                if name not in _CLASSES:
                    raise Unmatchable(pattern)
                members.update(_CLASSES[name])
                ch = 0
        else:
            members.add(ch)
        prev = ch
        p += 1
        ch = at(p)
        if ch == _RBRACKET:
            break
    chosen = (set(range(1, 256)) - members) if negated else members & set(range(1, 256))
    if pathname:
        chosen.discard(_SLASH)
    if not chosen:
        raise Unmatchable(pattern)
    return _byte_class(chosen), p + 1


def _byte_class(chosen: set[int]) -> bytes:
    """A regex class for exactly these byte values."""
    ordered = sorted(chosen)
    runs: list[bytes] = []
    start = previous = ordered[0]
    for value in [*ordered[1:], None]:
        if value is not None and value == previous + 1:
            previous = value
            continue
        runs.append(
            b"\\x%02x" % start if start == previous else b"\\x%02x-\\x%02x" % (start, previous)
        )
        if value is not None:
            start = previous = value
    return b"[" + b"".join(runs) + b"]"


def compile_items(items: list) -> re.Pattern[bytes]:
    """The regex for translated items, built so that no star is ever re-tried.

    Folder gaps (`**/`) split the pattern into blocks; single stars split a block into fixed
    pieces. Each piece takes its leftmost fit and each block (with the gap before it) its
    first, committed; only the last piece (which must end the name) and the last gap scan,
    once each.
    """
    groups = iter(range(1, MAX_LINE_WILDCARDS + 2))  # one per star at most: never octal
    blocks: list[list] = [[]]
    gaps: list[str] = []
    to_the_end = False
    for item in items:
        if item is _DIRS or item is _SOME_DIRS:
            gaps.append(item)
            blocks.append([])
        elif item is _ANY:
            to_the_end = True
        else:
            blocks[-1].append(item)
    parts: list[bytes] = []
    for k, block in enumerate(blocks):
        last = k == len(blocks) - 1 and not to_the_end
        if k == 0:
            parts.append(_block(block, last, groups))
            continue
        gap = b"(?:[^/]*/)*?" if gaps[k - 1] is _DIRS else b"(?:[^/]*/)+?"
        if last:
            parts.append(gap + _block(block, last, groups))
        else:
            number = next(groups)  # groups count by their opening parenthesis: outer first
            parts.append(_atomic(number, gap + _block(block, last, groups)))
    if to_the_end:
        parts.append(b".*")
    return re.compile(b"".join(parts), re.DOTALL)


def _atomic(number: int, body: bytes) -> bytes:
    """`body` matched once, at its first fit, and never re-tried: group `number` is a
    lookahead's capture, and a lookahead is not backtracked into."""
    return b"(?=(" + body + b"))(?:\\%d)" % number


def _block(items: list, last: bool, groups: Iterator[int]) -> bytes:
    """One block: fixed pieces between single stars, each piece at its leftmost fit."""
    pieces: list[bytes] = [b""]
    for item in items:
        if item is _STAR_ITEM:
            pieces.append(b"")
        else:
            pieces[-1] += item
    out = pieces[0]
    for j, piece in enumerate(pieces[1:], 1):
        if last and j == len(pieces) - 1:
            out += b"[^/]*" + piece  # the last piece ends the name: one scan, nothing after
        else:
            out += _atomic(next(groups), b"[^/]*?" + piece)
    return out
