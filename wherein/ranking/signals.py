"""The signals that decide code search, applied to fused candidates.

What an agent needs from the top 10 is the right *places*. Fused BM25 and
vector ranks get us candidates; these adjustments then say what the chunks are:
a chunk that defines the symbol asked for beats chunks that merely use it; a
file named for the query's concept is evidence; several strong chunks make a
file more likely the answer; tests, examples, docs and legacy copies crowd the
list unless the query asks for them; and one file should not take six slots.

Each adjustment is proportional to the best fused score, so none depends on
the scale of RRF scores. The constants were chosen on the visible development
benchmark (../shared/bench) and kept only where the ablation in the README
shows they help.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from wherein.ranking.tokens import STOPWORDS, identifier_parts, tokenize

__all__ = [
    "SIGNALS",
    "Candidate",
    "apply_signals",
    "copied_directories",
    "is_doc_path",
    "is_symbol_query",
    "is_test_path",
    "query_identifiers",
]

SIGNALS = frozenset({"definition", "path", "coherence", "penalty", "diversity"})

# A chunk that defines the symbol asked for jumps ahead of any mere use.
DEFINITION_BOOST = 1.0
# The file is named for the symbol too ("Session" in sessions.py).
DEFINITION_FILE_BONUS = 0.5
# Identifiers embedded in a natural-language query count for less.
EMBEDDED_IDENTIFIER_SCALE = 0.5
# Share of query keywords found in the path, times the best score.
PATH_BOOST = 0.5
PATH_MIN_RATIO = 0.1
# A file's best chunk gains this much of the best score, scaled by the file's
# share of the total candidate score.
COHERENCE_BOOST = 0.2
# Each further chunk from one file counts for this fraction of the one before.
DIVERSITY_DECAY = 0.5

_TEST_PATH = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|specs|test_?data|fixtures)/"
    r"|(^|/)(test_[^/]*|[^/]*_test\.[^/]+|[^/]*_tests\.[^/]+|[^/]*\.(test|spec)\.[^/]+"
    r"|[^/]*Tests?\.[^/]+|conftest\.py)$"
)
_EXAMPLE_PATH = re.compile(r"(^|/)(_?examples?|samples?|demos?|docs?_src|benchmarks?)/")
_DOC_PATH = re.compile(r"(^|/)(docs?|documentation)/|\.(md|rst|txt|adoc)$", re.IGNORECASE)
_LEGACY_PATH = re.compile(r"(^|/)(_?compat|legacy|deprecated|vendor(ed)?|third_party|_vendor)/")
_INIT_FILE = re.compile(r"(^|/)(__init__\.py|package-info\.java|index\.d\.ts)$")

# A folder is an older copy of its parent when this many of its file names, and this
# share of them, repeat the parent's (pydantic/v1 repeats 20 of pydantic's 25 names).
COPY_MIN_SHARED = 3
COPY_MIN_SHARE = 0.3
_VERSION_FOLDER = re.compile(r"v\d+|old|_?legacy_?v?\d*", re.IGNORECASE)
_PACKAGE_MARKERS = frozenset(
    {"__init__.py", "__main__.py", "index.js", "index.ts", "mod.rs", "lib.rs", "main.go"}
)

TEST_PENALTY = 0.3
EXAMPLE_PENALTY = 0.3
DOC_PENALTY = 0.5
LEGACY_PENALTY = 0.3
INIT_PENALTY = 0.5
TYPE_STUB_PENALTY = 0.7
# In the order path_penalty multiplies them.
_KIND_PENALTIES = (
    ("test", TEST_PENALTY),
    ("example", EXAMPLE_PENALTY),
    ("doc", DOC_PENALTY),
    ("legacy", LEGACY_PENALTY),
)

_QUERY_WANTS = {
    "test": ("test", "tests", "testing", "spec", "fixture", "fixtures"),
    "example": ("example", "examples", "sample", "demo", "tutorial"),
    "doc": ("doc", "docs", "documentation", "readme", "changelog", "guide"),
    "legacy": ("compat", "legacy", "deprecated", "vendor", "vendored"),
}

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*")


class Candidate(NamedTuple):
    """A chunk competing for a slot: where it is, what it declares, and its score.

    A named tuple, not a dataclass: a search builds two for each of a few hundred
    candidates, and a frozen dataclass costs three times as much to build.
    """

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    score: float


def is_symbol_query(query: str) -> bool:
    """True when the whole query is one identifier: `Session`, `parse_url`, `a.b::c`."""
    text = query.strip().strip("`'\"()")
    if not _IDENTIFIER.fullmatch(text):
        return False
    return bool(
        any(sep in text for sep in (".", "::", "->", "#", "_"))
        or any(c.isupper() for c in text)
        or len(identifier_parts(text)) > 1
    )


def query_identifiers(query: str) -> list[str]:
    """Identifier-looking words of a natural-language query: camelCase, snake_case, dotted."""
    found = []
    for match in _IDENTIFIER.finditer(query):
        word = match.group(0)
        if is_symbol_query(word) and word.lower() not in STOPWORDS:
            found.append(word)
    return found


def _last_segment(name: str) -> str:
    return re.split(r"\.|::|->|#", name)[-1]


@lru_cache(maxsize=65536)
def _symbol_names(symbols: tuple[str, ...]) -> frozenset[str]:
    """The names a chunk defines, each whole and by its last segment, lower-cased."""
    return frozenset(
        name for symbol in symbols for name in (symbol.lower(), _last_segment(symbol).lower())
    )


def _defines(candidate: Candidate, names: set[str]) -> bool:
    return not _symbol_names(candidate.symbols).isdisjoint(names)


@dataclass(frozen=True)
class _PathFacts:
    """What the signals read from a path, whatever the query: worked out once per path."""

    words: frozenset[str]  # the file stem's and the two nearest folders' tokens
    prefixes: frozenset[str]  # the first four letters of each word of four or more
    stem: str  # the file name before its first dot, lower-cased, leading `_` dropped
    kinds: frozenset[str]  # which of test, example, doc, legacy the path looks like
    init: bool
    stub: bool


@lru_cache(maxsize=65536)
def _path_facts(path: str) -> _PathFacts:
    words = _path_words(path)
    kinds = {
        kind
        for kind, pattern in (
            ("test", _TEST_PATH),
            ("example", _EXAMPLE_PATH),
            ("doc", _DOC_PATH),
            ("legacy", _LEGACY_PATH),
        )
        if pattern.search(path)
    }
    return _PathFacts(
        words=frozenset(words),
        prefixes=frozenset(w[:4] for w in words if len(w) >= 4),
        stem=path.rsplit("/", 1)[-1].split(".")[0].lower().lstrip("_"),
        kinds=frozenset(kinds),
        init=bool(_INIT_FILE.search(path)),
        stub=path.endswith(".d.ts"),
    )


def _file_named_for(path: str, name: str) -> bool:
    stem = _path_facts(path).stem
    name = name.lower()
    return stem in (name, name.replace("_", ""), name + "s") or stem.rstrip("s") == name


def _path_words(path: str) -> set[str]:
    parts = path.split("/")
    words = set(tokenize(parts[-1].rsplit(".", 1)[0]))
    for folder in parts[-3:-1]:
        words.update(tokenize(folder))
    return words


def _keywords(query: str) -> list[str]:
    words = []
    for word in re.findall(r"[A-Za-z]\w+", query):
        lowered = word.lower()
        if len(lowered) > 2 and lowered not in STOPWORDS:
            words.append(lowered)
    return list(dict.fromkeys(words))


def _keyword_keys(keywords: Sequence[str]) -> list[tuple[frozenset[str], str | None]]:
    """Per keyword: its tokens, and its first four letters when it has four or more."""
    return [(frozenset(tokenize(k)), k[:4] if len(k) >= 4 else None) for k in keywords]


def _path_ratio(facts: _PathFacts, keys: Sequence[tuple[frozenset[str], str | None]]) -> float:
    """The share of keywords the path names: a token in common, or a word of four letters
    or more that begins with the keyword's first four (`cookie` meets `cookies`)."""
    if not keys:
        return 0.0
    hits = 0
    for stems, prefix in keys:
        if not stems.isdisjoint(facts.words) or (prefix is not None and prefix in facts.prefixes):
            hits += 1
    return hits / len(keys)


def _wants(query: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"\w+", query)}
    return {kind for kind, triggers in _QUERY_WANTS.items() if words & set(triggers)}


def is_test_path(path: str) -> bool:
    """A test file or a file in a test folder (`tests/`, `test_x.py`, `x.spec.ts`, ...)."""
    return bool(_TEST_PATH.search(path))


def is_doc_path(path: str) -> bool:
    """Documentation: a prose file (`.md`, `.rst`, ...) or anything under `docs/`."""
    return bool(_DOC_PATH.search(path))


def path_penalty(path: str, wants: set[str] | frozenset[str]) -> float:
    """Multiplier for files that usually crowd out the answer unless asked for."""
    facts = _path_facts(path)
    factor = 1.0
    for kind, penalty in _KIND_PENALTIES:
        if kind in facts.kinds and kind not in wants:
            factor *= penalty
    if facts.init:
        factor *= INIT_PENALTY
    if facts.stub:
        factor *= TYPE_STUB_PENALTY
    return factor


def copied_directories(paths: Iterable[str]) -> frozenset[str]:
    """Folders that hold an older copy of their parent package (`pkg/v1/` beside `pkg/`).

    A folder is a copy when its name is a version (`v1`, `v2`, `old`) and at least
    COPY_MIN_SHARED of its file names, and COPY_MIN_SHARE of them, also stand in its
    parent folder: `pydantic/v1/fields.py` beside `pydantic/fields.py`. Both are needed:
    `api/v1/` beside `api/v2/` is the current API, not a copy, and a folder that merely
    mirrors its parent's layout (`sympy/strategies/branch`) is no older version. Package
    markers (`__init__.py`, `index.js`, `mod.rs`) are not evidence.
    """
    names: dict[str, set[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        if name not in _PACKAGE_MARKERS:
            names.setdefault(folder, set()).add(name)
    copies = set()
    for folder, files in names.items():
        if not folder or not _VERSION_FOLDER.fullmatch(folder.rpartition("/")[2]):
            continue
        parent = folder.rpartition("/")[0]
        shared = files & names.get(parent, set())
        if len(shared) >= COPY_MIN_SHARED and len(shared) >= COPY_MIN_SHARE * len(files):
            copies.add(folder)
    return frozenset(copies)


def _in_copy(path: str, copies: frozenset[str], query_words: set[str]) -> bool:
    for folder in copies:
        if path.startswith(folder + "/"):
            return folder.rpartition("/")[2].lower() not in query_words
    return False


def apply_signals(
    query: str,
    candidates: Sequence[Candidate],
    enabled: frozenset[str] = SIGNALS,
    copies: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Re-score and re-order fused candidates (distinct chunks); returns them best first.

    `copies` are folders holding an older copy of a package (`copied_directories`);
    their chunks count for less unless the query names the folder.

    The path signals are worked out once per file, not per chunk, from facts each path
    keeps for the process (`_path_facts`): a search runs this on every fused candidate,
    and a resident server on every query.
    """
    if not candidates:
        return []
    top = max(c.score for c in candidates) or 1.0

    coherence: dict[int, float] = {}  # a file's best candidate -> its boost
    if "coherence" in enabled:
        per_file: dict[str, float] = {}
        best_of_file: dict[str, int] = {}
        for i, c in enumerate(candidates):
            per_file[c.path] = per_file.get(c.path, 0.0) + c.score
            best = best_of_file.get(c.path)
            if best is None or c.score > candidates[best].score:
                best_of_file[c.path] = i
        most = max(per_file.values())
        for path, best in best_of_file.items():
            coherence[best] = COHERENCE_BOOST * top * per_file[path] / most

    symbol_query = is_symbol_query(query)
    names: set[str] = set()
    scale = 1.0
    if "definition" in enabled:
        if symbol_query:
            names = {query.strip().strip("`'\"()").lower()}
            names.add(_last_segment(next(iter(names))))
        else:
            names = {w.lower() for w in query_identifiers(query)}
            names |= {_last_segment(n) for n in names}
            scale = EMBEDDED_IDENTIFIER_SCALE

    by_path = "path" in enabled and not symbol_query
    penalise = "penalty" in enabled
    keys = _keyword_keys(_keywords(query)) if by_path else []
    wants = _wants(query) if penalise else set()
    in_copies = penalise and bool(copies)
    query_words = {w.lower() for w in re.findall(r"\w+", query)} if in_copies else set()
    # path -> (boost added, penalty factor, whether in an older copy): one per file.
    effects: dict[str, tuple[float | None, float | None, bool]] = {}

    # Each candidate's adjustments in a fixed order: coherence, definition, path, penalties.
    scores = []
    for i, c in enumerate(candidates):
        score = c.score
        boost = coherence.get(i)
        if boost is not None:
            score += boost
        if names and _defines(c, names):
            bonus = DEFINITION_BOOST * scale * top
            if any(_file_named_for(c.path, n) for n in names):
                bonus *= 1 + DEFINITION_FILE_BONUS
            score += bonus
        if by_path or penalise:
            effect = effects.get(c.path)
            if effect is None:
                ratio = _path_ratio(_path_facts(c.path), keys) if by_path else 0.0
                effect = effects[c.path] = (
                    PATH_BOOST * top * ratio if ratio >= PATH_MIN_RATIO else None,
                    path_penalty(c.path, wants) if penalise else None,
                    in_copies and _in_copy(c.path, copies, query_words),
                )
            boost, factor, in_copy = effect
            if boost is not None:
                score += boost
            if factor is not None:
                score *= factor
            if in_copy:
                score *= LEGACY_PENALTY
        scores.append(score)

    ordered = sorted(range(len(candidates)), key=lambda i: -scores[i])
    if "diversity" in enabled:
        taken: dict[str, int] = {}
        decayed = []
        for i in ordered:
            c = candidates[i]
            n = taken.get(c.path, 0)
            taken[c.path] = n + 1
            decayed.append((scores[i] * DIVERSITY_DECAY**n, c))
        decayed.sort(key=lambda pair: -pair[0])
        return [_rescored(c, s) for s, c in decayed]
    return [_rescored(candidates[i], scores[i]) for i in ordered]


def _rescored(c: Candidate, score: float) -> Candidate:
    return Candidate(c.chunk_id, c.path, c.start_line, c.end_line, c.symbols, score)
