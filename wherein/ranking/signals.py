"""The signals that decide code search, applied to fused candidates.

What an agent needs from the top 10 is the right *places*. Fused BM25 and
vector ranks get us candidates; these adjustments then say what the chunks are:
a chunk that defines the symbol asked for beats chunks that merely use it; a
file named for the query's concept is evidence; several strong chunks make a
file more likely the answer; tests, examples, docs and legacy copies crowd the
list unless the query asks for them; and one file should not take six slots.

Each adjustment is proportional to the best fused score, so none depends on
the scale of RRF scores. The constants were chosen on the development benchmark
that `scripts/bench.py` runs, and kept only where switching the signal off costs
quality there (`--ablate`; the README's "Ablation" table has the numbers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from wherein.ranking.paths import (
    LEGACY_PENALTY,
    PathFacts,
    copied_directories,
    in_copy,
    is_doc_path,
    is_test_path,
    path_facts,
    path_penalty,
    wanted_kinds,
)
from wherein.ranking.tokens import STOPWORDS, identifier_parts, tokenize

__all__ = [
    "SIGNALS",
    "Candidate",
    "apply_signals",
    "copied_directories",
    "is_doc_path",
    "is_symbol_query",
    "is_test_path",
    "learn_places",
    "query_identifiers",
    "signals_order",
]

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


def learn_places(places: Iterable[tuple[str, int, int, tuple[str, ...]]]) -> None:
    """Work out now the facts the signals keep for the process per path and per list of
    names, for these chunks' (path, first line, last line, names): a resident builder
    passes every chunk, so a query's candidates new to the session cost what a repeated
    query's do (0.3-0.5 ms of a 3.6 ms warm search of the standard library, before)."""
    paths: set[str] = set()
    names: set[tuple[str, ...]] = set()
    for path, _start, _end, symbols in places:
        if path not in paths:
            paths.add(path)
            path_facts(path)
        if symbols not in names:
            names.add(symbols)
            _symbol_names(symbols)


def _defines(candidate: Candidate, names: set[str]) -> bool:
    return not _symbol_names(candidate.symbols).isdisjoint(names)


def _file_named_for(path: str, name: str) -> bool:
    stem = path_facts(path).stem
    name = name.lower()
    return stem in (name, name.replace("_", ""), name + "s") or stem.rstrip("s") == name


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


def _path_ratio(facts: PathFacts, keys: Sequence[tuple[frozenset[str], str | None]]) -> float:
    """The share of keywords the path names: a token in common, or a word of four letters
    or more that begins with the keyword's first four (`cookie` meets `cookies`)."""
    if not keys:
        return 0.0
    hits = 0
    for stems, prefix in keys:
        if not stems.isdisjoint(facts.words) or (prefix is not None and prefix in facts.prefixes):
            hits += 1
    return hits / len(keys)


@dataclass(frozen=True)
class _Query:
    """What every signal reads of one query, worked out once per search."""

    text: str
    top: float  # the best fused score: each boost is a share of it
    symbol: bool  # the whole query is one identifier
    copies: frozenset[str]


# A scoring signal adds to or multiplies each candidate's score in place.
ScoringSignal = Callable[[_Query, Sequence[Candidate], list[float]], None]


def _coherence(query: _Query, candidates: Sequence[Candidate], scores: list[float]) -> None:
    """A file's best chunk gains in proportion to the file's share of the candidate score."""
    per_file: dict[str, float] = {}
    best_of_file: dict[str, int] = {}
    for i, c in enumerate(candidates):
        per_file[c.path] = per_file.get(c.path, 0.0) + c.score
        best = best_of_file.get(c.path)
        if best is None or c.score > candidates[best].score:
            best_of_file[c.path] = i
    most = max(per_file.values())
    for path, best in best_of_file.items():
        scores[best] += COHERENCE_BOOST * query.top * per_file[path] / most


def _definition(query: _Query, candidates: Sequence[Candidate], scores: list[float]) -> None:
    """A chunk that defines the symbol asked for beats chunks that merely use it."""
    if query.symbol:
        names = {query.text.strip().strip("`'\"()").lower()}
        names.add(_last_segment(next(iter(names))))
        scale = 1.0
    else:
        names = {w.lower() for w in query_identifiers(query.text)}
        names |= {_last_segment(n) for n in names}
        scale = EMBEDDED_IDENTIFIER_SCALE
    if not names:
        return
    for i, c in enumerate(candidates):
        if _defines(c, names):
            bonus = DEFINITION_BOOST * scale * query.top
            if any(_file_named_for(c.path, n) for n in names):
                bonus *= 1 + DEFINITION_FILE_BONUS
            scores[i] += bonus


def _path(query: _Query, candidates: Sequence[Candidate], scores: list[float]) -> None:
    """A file whose path names the query's keywords is evidence (not for a symbol query)."""
    if query.symbol:
        return
    keys = _keyword_keys(_keywords(query.text))
    boosts: dict[str, float | None] = {}  # one per file
    for i, c in enumerate(candidates):
        if c.path not in boosts:
            ratio = _path_ratio(path_facts(c.path), keys)
            boosts[c.path] = PATH_BOOST * query.top * ratio if ratio >= PATH_MIN_RATIO else None
        boost = boosts[c.path]
        if boost is not None:
            scores[i] += boost


def _penalty(query: _Query, candidates: Sequence[Candidate], scores: list[float]) -> None:
    """Tests, examples, docs, legacy and older copies count for less unless asked for."""
    wants = wanted_kinds(query.text)
    query_words = {w.lower() for w in re.findall(r"\w+", query.text)} if query.copies else set()
    factors: dict[str, tuple[float, bool]] = {}  # one per file
    for i, c in enumerate(candidates):
        if c.path not in factors:
            older = bool(query.copies) and in_copy(c.path, query.copies, query_words)
            factors[c.path] = (path_penalty(c.path, wants), older)
        factor, older = factors[c.path]
        scores[i] *= factor
        if older:
            scores[i] *= LEGACY_PENALTY


# The scoring signals, in the order each candidate's score meets them: the boosts add,
# then the penalties multiply. Diversity is not here: it re-orders the scored list.
SCORING_SIGNALS: dict[str, ScoringSignal] = {
    "coherence": _coherence,
    "definition": _definition,
    "path": _path,
    "penalty": _penalty,
}
SIGNALS = frozenset({*SCORING_SIGNALS, "diversity"})


def apply_signals(
    query: str,
    candidates: Sequence[Candidate],
    enabled: frozenset[str] = SIGNALS,
    copies: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Re-score and re-order fused candidates (distinct chunks); returns them best first.

    `copies` are folders holding an older copy of a package (`copied_directories`);
    their chunks count for less unless the query names the folder.
    """
    return list(signals_order(query, candidates, enabled, copies))


def signals_order(
    query: str,
    candidates: Sequence[Candidate],
    enabled: frozenset[str] = SIGNALS,
    copies: frozenset[str] = frozenset(),
) -> Iterator[Candidate]:
    """`apply_signals`, each candidate re-scored only when it is reached: a search keeps the
    first few that do not overlap (of 150-200), so the rest are never built.

    The path signals are worked out once per file, not per chunk, from facts each path
    keeps for the process (`_path_facts`): a search runs this on every fused candidate,
    and a resident server on every query.
    """
    if not candidates:
        return iter(())
    facts = _Query(
        text=query,
        top=max(c.score for c in candidates) or 1.0,
        symbol=is_symbol_query(query),
        copies=copies,
    )
    scores = [c.score for c in candidates]
    for name, signal in SCORING_SIGNALS.items():
        if name in enabled:
            signal(facts, candidates, scores)
    # Best first; of equal scores the earlier first (a reversed sort is stable too).
    ordered = sorted(range(len(candidates)), key=scores.__getitem__, reverse=True)
    if "diversity" in enabled:
        return _diversified(candidates, scores, ordered)
    return (_rescored(candidates[i], scores[i]) for i in ordered)


def _diversified(
    candidates: Sequence[Candidate], scores: list[float], ordered: list[int]
) -> Iterator[Candidate]:
    """Each further chunk of one file counts for DIVERSITY_DECAY of the one before it."""
    taken: dict[str, int] = {}
    decayed = []
    for i in ordered:
        path = candidates[i].path
        n = taken.get(path, 0)
        taken[path] = n + 1
        decayed.append(scores[i] * DIVERSITY_DECAY**n)
    again = sorted(range(len(ordered)), key=decayed.__getitem__, reverse=True)
    return (_rescored(candidates[ordered[j]], decayed[j]) for j in again)


def _rescored(c: Candidate, score: float) -> Candidate:
    return Candidate(c.chunk_id, c.path, c.start_line, c.end_line, c.symbols, score)
