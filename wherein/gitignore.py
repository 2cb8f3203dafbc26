"""gitignore lines read and matched the way git does, in time linear in name x pattern.

A repository plants its own ignore files, so no line may be able to stall the walk. Each
line is parsed as git's `dir.c` parses it; its wildcards are compiled by `wherein.wildmatch`
into a regular expression whose stars are never re-tried. Literal names, paths and `*.ext`
lines, most of any real file, are looked up in dictionaries, without a regular expression.

Paths and patterns are bytes, as in git: `?` is one byte, and a name that is not UTF-8 is
matched by its own bytes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from wherein.wildmatch import (
    BACKSLASH,
    MAX_LINE_WILDCARDS,
    STAR,
    TooManyWildcards,
    Unmatchable,
    compile_items,
    glob_items,
    simple_length,
)

__all__ = [
    "MAX_LINE_WILDCARDS",
    "MAX_RULES_IN_FORCE",
    "MAX_WILDCARD_LINES",
    "IgnoreList",
    "Rule",
    "TooManyWildcards",
    "Unmatchable",
    "compile_rule",
    "ignore_file_lines",
    "is_wildcard_line",
]

# A cap git does not have, far above what real files hold, that bounds what a planted one
# can cost: each check of a name costs about one regex match per wildcard line that applies,
# 2-10 us each (the longer the path, the dearer), and the walk checks every file and folder.
# GitHub's largest template (VisualStudio) has 58 wildcard lines among its 223. At 10,000, a
# planted file with long folder names made indexing 200 files take 75 s (10 s at 1,000).
MAX_WILDCARD_LINES = 1_000  # lines that need a regex, applying to one folder
# Lines of every kind applying to one folder, its own and its parents': each is held while
# the walk is below it, and 40 nested folders of 1 MiB ignore files (2 million lines) held
# 1.08 GB. A hundred thousand is some 500 times what real files hold.
MAX_RULES_IN_FORCE = 100_000
# Longer than any path the walk checks (a folder's path fits PATH_MAX, 4096 bytes on Linux,
# and a name fits NAME_MAX, 255): a line whose shortest match is longer matches nothing.
MAX_MATCH_BYTES = 8192

# How a rule compares: the basename or the path, as bytes or by a regular expression.
BASENAME_IS, BASENAME_ENDS, BASENAME_GLOB, PATH_IS, PATH_GLOB = range(5)
_GLOBS = (BASENAME_GLOB, PATH_GLOB)


class Rule(NamedTuple):
    """One compiled ignore line: `text` is the literal name, suffix or path compared as bytes,
    or (PATH_GLOB) the literal start git compares before it wildmatches the rest (`glob`)."""

    negated: bool
    dir_only: bool
    kind: int
    text: bytes
    glob: re.Pattern[bytes] | None


def ignore_file_lines(data: bytes) -> list[str]:
    """The lines of an ignore file as git splits them: a UTF-8 byte order mark dropped, split
    at LF only, one CR before it dropped. Bytes that are not UTF-8 survive (surrogateescape),
    so a pattern still matches the raw bytes of a name."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return [
        (line[:-1] if line.endswith(b"\r") else line).decode("utf-8", "surrogateescape")
        for line in lines
    ]


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's trim_trailing_spaces: unescaped spaces at the end go, a `\\ ` stays."""
    if not line.endswith(b" "):
        return line
    last_space = None
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == 0x20:
            if last_space is None:
                last_space = i
        elif c == BACKSLASH:
            i += 1
            if i >= n:
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def _classify(line: str) -> tuple[bool, bool, int, bytes, bytes] | None:
    """(negated, dir only, kind, literal text, rest to wildmatch) for a line, as git's
    parse_path_pattern and match_basename/match_pathname read it; None for nothing to match."""
    raw = line.encode("utf-8", "surrogateescape")
    if raw.startswith(b"#"):
        return None
    raw = _trim_trailing_spaces(raw.split(b"\0", 1)[0])  # git reads C strings
    if not raw:
        return None
    negated = raw.startswith(b"!")
    pattern = raw[1:] if negated else raw
    dir_only = pattern.endswith(b"/")
    if dir_only:
        pattern = pattern[:-1]
    if not pattern:
        raise Unmatchable(line)
    prefix_len = simple_length(pattern)
    if b"/" not in pattern:  # git's NODIR: compared with the basename, at any depth
        if prefix_len == len(pattern):
            return negated, dir_only, BASENAME_IS, pattern, b""
        if pattern[0] == STAR and simple_length(pattern, 1) == len(pattern):
            return negated, dir_only, BASENAME_ENDS, pattern[1:], b""
        return negated, dir_only, BASENAME_GLOB, b"", pattern
    if pattern.startswith(b"/"):
        pattern = pattern[1:]
        prefix_len -= 1
    if prefix_len == len(pattern):
        return negated, dir_only, PATH_IS, pattern, b""
    # git compares the literal start, then wildmatches the rest as a pattern of its own: so
    # `**` right after the literal start counts as starting a segment (`foo**/bar` matches
    # `foobar` and `foox/y/bar` in git, and here).
    return negated, dir_only, PATH_GLOB, pattern[:prefix_len], pattern[prefix_len:]


def is_wildcard_line(line: str) -> bool:
    """Whether the line needs a regular expression (counts against MAX_WILDCARD_LINES)."""
    try:
        parsed = _classify(line)
    except Unmatchable:
        return False
    return parsed is not None and parsed[2] in _GLOBS


@lru_cache(maxsize=4096)
def compile_rule(line: str) -> Rule | None:
    """The rule for one line of an ignore file, None for a blank line or a comment.

    Raises:
        Unmatchable: git keeps the line, but it can match no path.
        TooManyWildcards: more than MAX_LINE_WILDCARDS runs of `*` in it.
    """
    parsed = _classify(line)
    if parsed is None:
        return None
    negated, dir_only, kind, text, rest = parsed
    if kind not in _GLOBS:
        return Rule(negated, dir_only, kind, text, None)
    items, shortest = glob_items(rest, pathname=kind == PATH_GLOB)
    if len(text) + shortest > MAX_MATCH_BYTES:
        raise Unmatchable(line)
    return Rule(negated, dir_only, kind, text, compile_items(items))


class IgnoreList:
    """The rules of one folder's ignore files, in file order: the last match decides.

    Literal names and paths and `*suffix` lines go into dictionaries (a check looks up the
    name, the path and each suffix length once); only wildcard lines later in the file than
    the best dictionary hit are matched one by one, last first. Files and folders get tables
    of their own, so a check of a file never looks at a `dir/` line.
    """

    __slots__ = ("_tables", "size", "wildcards")

    def __init__(self, rules: list[Rule]) -> None:
        self.size = len(rules)
        self.wildcards = sum(rule.kind in _GLOBS for rule in rules)
        self._tables = (self._table(rules, False), self._table(rules, True))

    @staticmethod
    def _table(rules: list[Rule], is_dir: bool):
        names: dict[bytes, tuple[int, bool]] = {}
        paths: dict[bytes, tuple[int, bool]] = {}
        suffixes: dict[int, dict[bytes, tuple[int, bool]]] = {}
        globs: list[tuple[int, Rule]] = []
        for index, rule in enumerate(rules):
            if rule.dir_only and not is_dir:
                continue
            hit = (index, rule.negated)  # a later line overwrites: the last one wins
            if rule.kind == BASENAME_IS:
                names[rule.text] = hit
            elif rule.kind == PATH_IS:
                paths[rule.text] = hit
            elif rule.kind == BASENAME_ENDS:
                suffixes.setdefault(len(rule.text), {})[rule.text] = hit
            else:
                globs.append((index, rule))
        return names, paths, sorted(suffixes.items()), globs[::-1]

    def verdict(self, path: bytes, is_dir: bool) -> bool | None:
        """True when `path` (relative to the folder) is ignored, False when a `!` line takes
        it back, None when no line matches."""
        hit = self.last_match(path, is_dir)
        return None if hit is None else not hit[1]

    def last_match(self, path: bytes, is_dir: bool) -> tuple[int, bool] | None:
        """The (line index, negated) of the last line matching `path`, None when none does."""
        names, paths, suffixes, globs = self._tables[is_dir]
        basename = path[path.rfind(b"/") + 1 :]
        best = names.get(basename, (-1, False))
        hit = paths.get(path)
        if hit is not None and hit[0] > best[0]:
            best = hit
        size = len(basename)
        for length, table in suffixes:
            if length > size:
                break
            hit = table.get(basename[size - length :])
            if hit is not None and hit[0] > best[0]:
                best = hit
        for index, rule in globs:
            if index < best[0]:
                break
            if rule.kind == BASENAME_GLOB:
                if rule.glob.fullmatch(basename) is not None:
                    return index, rule.negated
            elif path.startswith(rule.text) and rule.glob.fullmatch(path, len(rule.text)):
                return index, rule.negated
        return None if best[0] < 0 else best
