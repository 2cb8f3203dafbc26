"""Whether a question names its answer: an identifier or a path found in the gold files.

"Fix `select_proxy` for IPv6", "hooks.py: keep the order" or "search: ..." (a component
prefix naming the gold file's module or folder) can be answered by grep; "retry
idempotent requests on connection reset" cannot, and is what semantic search is for, so the
two kinds are scored apart. Only code-shaped words count as identifiers (snake_case,
camelCase, `HTTPServer`, dotted or `::` names, a call `f()`, or anything in backticks): a
capitalised first word ("Retry ...") is English, not a class name, even if a class is so named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from wherein.evaluation.filters import component_prefix

__all__ = ["LEXICAL", "SEMANTIC", "code_words", "lexical_reason"]

LEXICAL = "lexical"
SEMANTIC = "semantic"

_BACKTICKED = re.compile(r"`([^`\s]{2,})`")
_TOKEN = re.compile(r"[\w.:/\\-]*\w(?:\(\))?")
_SHAPED = re.compile(
    r"[A-Za-z0-9]_[A-Za-z0-9]|_[A-Za-z]|[a-z0-9][A-Z]|[A-Z]{2,}[a-z]|::|\(\)$|"
    r"[A-Za-z_]\w*\.[A-Za-z_]\w+"
)
_VERSION = re.compile(r"^v?\d+(\.\d+)+")


def code_words(text: str) -> list[str]:
    """The code-shaped words of a question, in order, without repeats."""
    found = [m.group(1).strip("()") for m in _BACKTICKED.finditer(text)]
    for match in _TOKEN.finditer(text):
        word = match.group(0).strip(".:-/")
        if len(word) > 1 and _SHAPED.search(word) and not _VERSION.match(word):
            found.append(word.removesuffix("()"))
    return list(dict.fromkeys(word for word in found if word))


def lexical_reason(text: str, gold: Sequence[str], gold_texts: Mapping[str, str]) -> str | None:
    """`path:<name>` or `identifier:<word>` when the question names its answer, else None.

    Args:
        gold: the answer's paths, relative to the workspace.
        gold_texts: their contents (a file that could not be read is simply absent).
    """
    words = code_words(text)
    lowered = text.lower()
    components = {c.lower() for c in component_prefix(text)[0]}
    for path in gold:
        named = components & _path_names(path)
        if named:
            return f"path:{sorted(named)[0]}"
    for path in gold:
        name = path.rsplit("/", 1)[-1]
        if _names(lowered, path.lower()) or (len(name) > 3 and _names(lowered, name.lower())):
            return f"path:{name}"
        stem = name.split(".")[0]
        if stem in words:  # a file named like code: change_check, httpClient
            return f"path:{name}"
    for word in words:
        parts = [p for p in re.split(r"\.|::|/", word) if p]
        for path in gold:
            body = gold_texts.get(path)
            if body is not None and all(_occurs(part, body) for part in parts):
                return f"identifier:{word}"
    return None


def _path_names(path: str) -> set[str]:
    """What a component prefix may call a file: its name, its stem, or one of its folders."""
    parts = path.lower().split("/")
    return {parts[-1], parts[-1].split(".")[0], *parts[:-1]}


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text) is not None


def _occurs(word: str, body: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", body) is not None
