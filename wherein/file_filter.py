"""Which files a search may rank: their language, and gitignore-style globs to keep or drop.

A filter narrows the chunks every ranker sees (BM25, each vector tier, exact matches), before
anything is cut to the limit: a filter that removes the best hits still returns `limit`
results when enough chunks pass it, and nothing is over-fetched. It combines with `--path`
and the focus (all must hold). Globs follow gitignore syntax, matched against the path a
result shows: `*.py` at any depth, `/app/*.py` at the top, `tests/` for a folder and
everything under it. They are matched as the walk matches ignore files (`wherein.gitignore`),
in time linear in the path whatever the pattern: `pathspec`, used here before, backtracks,
and an agent's `*a*a*a*a*b` against one 250-character name took 27 s for four stars and
held the whole MCP server for minutes with five.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wherein.errors import UsageError
from wherein.gitignore import MAX_LINE_WILDCARDS, IgnoreList, TooManyWildcards, compile_rule
from wherein.untrusted import echo

__all__ = ["MAX_PATTERNS", "FileFilter", "file_filter", "known_languages"]

# More patterns than this is a file list, not a filter; each one is compiled per search.
MAX_PATTERNS = 50
# What a file without a grammar is labelled in the index (`chunking.chunker.chunk_source`).
PLAIN_TEXT = "text"


def known_languages() -> list[str]:
    """The language labels the index can hold, sorted (what `--lang` accepts besides aliases)."""
    # Imported here: a search without --lang must not load the chunking package.
    from wherein.chunking.languages import EXTENSIONS, FILENAMES

    return sorted({*EXTENSIONS.values(), *FILENAMES.values(), PLAIN_TEXT})


@dataclass(frozen=True)
class FileFilter:
    """The languages a file must be in (any, when empty) and the globs it must or must not match."""

    languages: frozenset[str] = frozenset()
    globs: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.languages or self.globs or self.excludes)

    def matcher(self) -> Callable[[str, str], bool]:
        """A test of (display path, language): whether the file may be ranked."""
        keep = _spec(self.globs) if self.globs else None
        drop = _spec(self.excludes) if self.excludes else None
        languages = self.languages

        def allowed(path: str, language: str) -> bool:
            if languages and language not in languages:
                return False
            if keep is not None and not keep.match_file(path):
                return False
            return drop is None or not drop.match_file(path)

        return allowed


def file_filter(
    languages: Sequence[str] = (),
    globs: Sequence[str] = (),
    excludes: Sequence[str] = (),
    names: tuple[str, str, str] = ("--lang", "--glob", "--exclude"),
) -> FileFilter:
    """A checked filter; `names` are how the caller's user spelled the three options.

    A language is a label of the index (`python`, `typescript`, `text`) or a file extension
    (`py`, `ts`, `md`), in any case.

    Raises:
        UsageError: an unknown language, a pattern gitignore syntax cannot read, or too many.
    """
    lang_name, glob_name, exclude_name = names
    chosen = frozenset(_language(value, lang_name) for value in languages)
    kept = _patterns(globs, glob_name)
    if kept and all(pattern.lstrip().startswith("!") for pattern in kept):
        # Lines that only take files back keep nothing: the search would answer nothing.
        raise UsageError(
            f"{glob_name} {echo(kept[0])} only takes files back, so it keeps none: a glob "
            f"names the files to keep. To leave files out, give {exclude_name} "
            f"{echo(kept[0].lstrip()[1:])} instead."
        )
    return FileFilter(chosen, kept, _patterns(excludes, exclude_name))


def _language(value: str, name: str) -> str:
    wanted = value.strip().lower().lstrip(".")
    labels = known_languages()
    if wanted in labels:
        return wanted
    from wherein.chunking.languages import EXTENSIONS

    if wanted in EXTENSIONS:
        return EXTENSIONS[wanted]
    raise UsageError(
        f"{name} {echo(value)} is not a language wherein knows: name one of "
        f"{', '.join(labels)}, or a file extension such as py."
    )


def _patterns(values: Sequence[str], name: str) -> tuple[str, ...]:
    patterns = tuple(value for value in values if value.strip())
    if len(patterns) > MAX_PATTERNS:
        raise UsageError(
            f"{name} was given {len(patterns)} times; give at most {MAX_PATTERNS} patterns."
        )
    for pattern in patterns:
        if "\n" in pattern or "\r" in pattern:
            raise UsageError(f"{name} {echo(pattern)} holds a line break; give one pattern each.")
        try:
            _spec((pattern,))
        except TooManyWildcards:
            raise UsageError(
                f"{name} {echo(pattern)} has more than {MAX_LINE_WILDCARDS} `*` wildcards; "
                "give simpler patterns."
            ) from None
        except (ValueError, re.error):  # Unmatchable is a ValueError
            raise UsageError(
                f"{name} {echo(pattern)} is not a gitignore-style pattern that can match a "
                "path; write it as a .gitignore line, such as '*.py' or 'tests/'."
            ) from None
    return patterns


class _Globs:
    """Gitignore lines as a test of one path: the last line that matches the file or a
    folder above it decides (`tests/` holds everything under tests, `!tests/keep.py` takes
    one back), as `pathspec.GitIgnoreSpec` decides (tests/test_file_filter.py compares)."""

    def __init__(self, rules: IgnoreList) -> None:
        self.rules = rules

    def match_file(self, path: str) -> bool:
        raw = path.encode("utf-8", "surrogateescape")
        best = self.rules.last_match(raw, False)
        cut = raw.find(b"/")
        while cut != -1:
            hit = self.rules.last_match(raw[:cut], True)
            if hit is not None and (best is None or hit[0] > best[0]):
                best = hit
            cut = raw.find(b"/", cut + 1)
        return best is not None and not best[1]


def _spec(patterns: Sequence[str]) -> _Globs:
    """The patterns compiled as one ignore file's lines (the last match decides).

    Raises:
        Unmatchable, TooManyWildcards: as `wherein.gitignore.compile_rule`.
    """
    rules = [rule for rule in map(compile_rule, patterns) if rule is not None]
    return _Globs(IgnoreList(rules))
