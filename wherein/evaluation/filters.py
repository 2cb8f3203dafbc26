"""Which commits make fair questions: the subject as a query, and which changed files answer it.

A subject is cleaned (conventional-commit and tag prefixes, issue references) and dropped
when it only says the commit is a merge, a revert, a release or a version bump, a dependency
update, or about CI, docs, tests, formatting or a typo: those name no place in the code. The
files that answer a question are its source files (a language the chunker parses, not a test,
not docs); release notes restate subjects almost word for word, so they are never an answer
(the rule of `shared/bench/score.py`, whose commit set this follows).
"""

from __future__ import annotations

import os
import re

from wherein.chunking.languages import CODE_LANGUAGES, language_for
from wherein.ranking.paths import is_doc_path, is_test_path

__all__ = [
    "DROP_REASONS",
    "MAX_SUBJECT_CHARS",
    "MIN_CJK_LETTERS",
    "MIN_WORDS",
    "SHORT_SUBJECT_WORDS",
    "clean_subject",
    "component_prefix",
    "is_release_notes",
    "is_source_file",
    "subject_drop_reason",
]

# Why a commit is not a question, in the order the report lists them.
DROP_REASONS = {
    "undecodable": "subject is not valid UTF-8",
    "long": "subject over 1,000 characters",
    "merge": "merge subject",
    "revert": "revert",
    "release": "release",
    "version": "only names a version",
    "dependencies": "dependency update",
    "ci": "CI",
    "docs": "documentation",
    "tests": "tests",
    "formatting": "formatting or lint",
    "typo": "typo or spelling",
    "short": "subject too short to be a question",
    "no_source": "changes no source file (only tests, docs, config or binary files)",
    "too_many": "changes more than 3 source files",
    "adds_or_deletes": "adds, deletes or copies a source file",
    "outside": "changes source files outside the workspace",
    "gone": "its files no longer exist at HEAD",
    "duplicate": "same question as a newer commit",
    "not_indexed": "its files are not in the index (ignored, generated or too large)",
}

# Real subjects stay under a few hundred characters; the bound also caps the work the
# patterns below do on a subject a hostile history made huge (some backtrack on long words).
MAX_SUBJECT_CHARS = 1000
# "Fix it" asks nothing; three words are the shortest subjects that name a behaviour.
MIN_WORDS = 3
# Chinese and Japanese are written without spaces: count letters instead of words.
MIN_CJK_LETTERS = 4
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W\d_]+")

# Conventional-commit types (`fix(api)!: ...`) and numpy-style tags (`BUG: ...`); the ones
# that say what kind of change it is carry a drop reason.
_TYPE_REASONS = {
    "docs": "docs",
    "doc": "docs",
    "ci": "ci",
    "test": "tests",
    "tests": "tests",
    "tst": "tests",
    "style": "formatting",
    "sty": "formatting",
    "lint": "formatting",
    "release": "release",
    "rel": "release",
    "revert": "revert",
    "deps": "dependencies",
    "dep": None,
    "bld": None,
    "build": None,
    "fix": None,
    "bug": None,
    "bugfix": None,
    "hotfix": None,
    "feat": None,
    "feature": None,
    "enh": None,
    "perf": None,
    "refactor": None,
    "chore": None,
    "maint": None,
    "api": None,
    "security": None,
    "sec": None,
    "wip": None,
    "misc": None,
    "improvement": None,
    "cleanup": None,
}
_TYPE_PREFIX = re.compile(r"^\s*([A-Za-z]+)(\(([^)]*)\))?!?:\s*")
_TAG = re.compile(r"^\s*\[([^\]]{1,30})\]\s*|\s*\[([^\]]{1,30})\]\s*$")
_TICKET_PREFIX = re.compile(r"^\s*[A-Z][A-Z0-9]+-\d+\s*[:\-]?\s+")
_REFERENCE = re.compile(
    r"\s*\((?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see|gh)\s*)?"
    r"(?:[\w.-]+/[\w.-]+)?[#!]\d+(?:\s*,\s*[#!]?\d+)*\)"  # (#123), (fixes #1, #2), (!45)
    r"|\s*\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?)\s+(?:[\w.-]+/[\w.-]+)?#\d+"
    r"|\s*(?:[\w.-]+/[\w.-]+)?#\d+\b|\s*\bGH-\d+\b",
    re.IGNORECASE,
)
# What is left of "Retry on reset, fixes #12" once the reference is gone.
_TRAILING_VERB = re.compile(r"[\s,;:]*\b(fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s*$", re.I)

# `search: ...`, `scope, workspace: ...`, `measure.py: ...`: the module or folder changed.
_COMPONENT = re.compile(r"^([\w.\-/]+(?:,\s*[\w.\-/]+){0,3}):\s+")

_VERSION = r"v?\d+(?:\.\d+)+(?:[-.+]?(?:a|b|rc|dev|post|alpha|beta|pre|final)\.?\d*)*"
_VERSION_WORD = re.compile(rf"^(?:{_VERSION}|\d+)$", re.IGNORECASE)
# Words a version or release subject wraps around its numbers ("Bump version to 2.1").
_VERSION_FILLER = frozenset(
    "bump bumped bumps bumping version versions to v update updated set the for prepare "
    "preparing back start starting new next development dev of and is final post pre "
    "number mark marked as".split()
)
_RELEASE_WORDS = frozenset("release released releases releasing tag tagged cut".split())


def _rules(*pairs: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((reason, re.compile(pattern, re.IGNORECASE)) for reason, pattern in pairs)


# What a subject says it is, by how it opens (or, for a typo, anywhere).
_SUBJECT_RULES = _rules(
    (
        "merge",
        r"^merged?\s+(branch|pull request|remote-tracking|tag|commit|'|\"|"
        r"(the\s+)?(master|main|develop|dev|upstream|origin)\b|(in\s+|from\s+)?pr\b)",
    ),
    ("merge", r"\bmerge (branch|pull request|remote-tracking branch) "),
    (
        "revert",
        r"^(partially\s+|partial\s+)?revert(ed|s|ing)?\s*(\"|'|\u201c|commit\b|"
        r"[0-9a-f]{7,40}\b|(pr|pull request)\b|#\d+|the (last|previous) commit|"
        r"changes? (from|in|of)\b|:|$)",
    ),
    ("revert", r"^(reapply|re-apply|reland|undo (the )?(last |previous )?commit)\b"),
    ("dependencies", r"^(bump|upgrade|update|pin|unpin)\s+\S+(\s+\S+)?\s+from\s+\S+\s+to\s"),
    ("dependencies", r"^(bump|upgrade|update|pin)\s+\S+\s+(to\s+)?v?\d+\.\d+\S*$"),
    ("dependencies", r"^(pin|unpin)\s+\S+\s*([<>=!~]=?\s*v?\d\S*)?$"),
    ("dependencies", r"\b(dependabot|renovate(bot)?|poetry\.lock|package-lock\.json|yarn\.lock)\b"),
    ("docs", r"^(docs?|documentation|readme|changelog|news|release notes)\b|^document\b"),
    (
        "docs",
        r"^(update|fix|improve|add|adds|added|clarify|expand|rewrite|polish|tweak|correct|"
        r"clean ?up|reword|extend)\s+(the\s+|a\s+|some\s+|more\s+)?(docs?|documentation|"
        r"readme|docstrings?|comments?|changelog|release notes|api docs|wording)\b",
    ),
    ("tests", r"^tests?\b|^testing\b"),
    (
        "tests",
        r"^(add|adds|added|fix|fixes|fixed|update|improve|more|extend|refactor|expand|"
        r"clean ?up|simplify|skip|xfail|mark)\s+(\S+\s+){0,2}?(unit\s+|regression\s+|"
        r"integration\s+|flaky\s+)?tests?\b",
    ),
    ("tests", r"^(\S+\s+){0,2}tests?(:|\s+(for|with|of|that)\b)"),
    (
        "formatting",
        r"^(run\s+|apply\s+|format (code )?with\s+)?(black|isort|ruff format|prettier|gofmt|"
        r"rustfmt|clang-format|autopep8|yapf)\b|^(re)?format(s|ted|ting)?\b",
    ),
    (
        "formatting",
        r"^(fix(es)?\s+|appease\s+|satisfy\s+|make\s+)?(the\s+)?(lint|linter|linting|flake8|"
        r"pylint|mypy|ruff|eslint|pyright)\b",
    ),
    ("typo", r"\b(typos?|misspell\w*|spelling)\b"),
)
# A short subject is about what it mentions ("Fix CI", "Sort imports", "Update
# requirements"); a longer one mentioning it ("...; README and CHANGELOG", "strip trailing
# whitespace from excerpts") is about something else.
SHORT_SUBJECT_WORDS = 6
_MENTION_RULES = _rules(
    (
        "ci",
        r"\b(ci|github actions?|github workflows?|gh actions|travis|appveyor|circle ?ci|"
        r"azure pipelines|gitlab[- ]ci|jenkins(file)?|pre-commit|tox|nox(file)?|buildkite|"
        r"codecov|coveralls)\b|\.github/",
    ),
    (
        "dependencies",
        r"\b(dependenc(y|ies)|deps|requirements(\.txt)?|lock ?file|go\.sum|cargo\.lock|"
        r"uv\.lock)\b",
    ),
    ("docs", r"\b(docs|documentation|docstrings?|readme|changelog|release notes)\b"),
    ("tests", r"\btests?\b"),
    (
        "formatting",
        r"\b(code style|coding style|whitespace|trailing spaces|import order|sort(ed)? imports|"
        r"pep ?8|line length|lint)\b",
    ),
)

# Release notes (CHANGELOG*, CHANGES*, HISTORY*, NEWS*, RELEASE-NOTES*, WHATSNEW* prose files, or
# anything under a changelog/changes/newsfragments folder): shared/bench/score.py's rule, plus
# towncrier fragments, which that rule misses.
_NOTES_NAME = re.compile(
    r"^(changelog|changes|history|news|release[-_ ]?notes|releases|whats[-_]?new)([-_.][^/]*)?$",
    re.IGNORECASE,
)
_NOTES_DIR = re.compile(
    r"^(changelog|changes|release[-_]?notes|releasenotes|whatsnew|unreleased.*|newsfragments|"
    r"changelog\.d|changes\.d)$",
    re.IGNORECASE,
)
_PROSE_EXTS = frozenset({"", ".md", ".rst", ".txt", ".markdown", ".adoc", ".asciidoc"})
# towncrier's fragment types (`newsfragments/123.feature`), release notes in a notes folder.
_FRAGMENT_EXTS = frozenset(
    ".feature .bugfix .bug .fix .misc .removal .deprecation .doc .breaking .change .added "
    ".changed .fixed .security".split()
)


def clean_subject(subject: str) -> tuple[str, str | None]:
    """The subject as a question, and the drop reason its conventional type carries.

    `fix(http): retry on reset (#12)` -> ("retry on reset", None); `docs: ...` -> (..., "docs").
    """
    text = " ".join(subject.split())
    reason = None
    for _ in range(3):  # `[core] fix: ...` and `fix: [core] ...` both occur
        before = text
        text = _TICKET_PREFIX.sub("", text)
        match = _TYPE_PREFIX.match(text)
        if match and match.group(1).lower() in _TYPE_REASONS:
            kind = match.group(1).lower()
            scope = (match.group(3) or "").strip().lower()
            reason = reason or _TYPE_REASONS[kind]
            if scope in ("deps", "dependencies", "deps-dev") and reason is None:
                reason = "dependencies"
            if scope == "release" and reason is None:
                reason = "release"
            text = text[match.end() :]
        text = _TAG.sub(" ", text).strip()
        if text == before:
            break
    text = _REFERENCE.sub("", text)
    text = _TRAILING_VERB.sub("", text)
    text = " ".join(text.split()).strip(" .;,:-")
    return text, reason


def component_prefix(text: str) -> tuple[list[str], str]:
    """The components a subject opens with (`search, store: ...`), and the rest of it."""
    match = _COMPONENT.match(text)
    if match is None:
        return [], text
    return [part.strip() for part in match.group(1).split(",")], text[match.end() :]


def subject_drop_reason(text: str) -> str | None:
    """Why a cleaned subject is not a question about a place in the code, else None.

    A component prefix (`search: ruff format`) is looked past: it names where, not what.
    """
    components, rest = component_prefix(text)
    return _drop_reason(text) or (_drop_reason(rest) if components else None)


def _drop_reason(text: str) -> str | None:
    words = text.split()
    if words:
        plain = [w.strip("()[]'\",.:;!").lower() for w in words]
        rest = [w for w in plain if w and w not in _VERSION_FILLER and not _VERSION_WORD.match(w)]
        has_version = any(_VERSION_WORD.match(w) for w in plain)
        if not rest or all(w in _RELEASE_WORDS for w in rest):
            if any(w in _RELEASE_WORDS for w in plain):
                return "release"
            if has_version or "version" in plain:
                return "version"
    for reason, pattern in _SUBJECT_RULES:
        if pattern.search(text):
            return reason
    if len(words) <= SHORT_SUBJECT_WORDS:
        for reason, pattern in _MENTION_RULES:
            if pattern.search(text):
                return reason
    letters = _WORD.findall(text)
    if len(letters) < MIN_WORDS and not (
        _CJK.search(text) and sum(len(w) for w in letters) >= MIN_CJK_LETTERS
    ):
        return "short"
    return None


def is_source_file(path: str) -> bool:
    """A file a code question is answered by: a parsed language, not a test, not docs."""
    language = language_for(path)
    if language is None or language not in CODE_LANGUAGES:
        return False
    return not is_test_path(path) and not is_doc_path(path) and not is_release_notes(path)


def is_release_notes(path: str) -> bool:
    """A release-notes file: never an answer, since it restates the subjects."""
    parts = path.split("/")
    ext = os.path.splitext(parts[-1])[1].lower()
    in_notes = any(_NOTES_DIR.match(d) for d in parts[:-1])
    if in_notes and ext in _FRAGMENT_EXTS:
        return True
    if ext not in _PROSE_EXTS and not re.fullmatch(r"\.\d+", ext):
        return False
    return bool(_NOTES_NAME.match(parts[-1])) or in_notes
