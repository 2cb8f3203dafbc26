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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise

import numpy as np

from wherein.index.chunk_places import ChunkPlace
from wherein.inline_tests import in_test_module as inline_test
from wherein.ranking.candidates import Candidate, CandidateBatch, batch_of, name_segments
from wherein.ranking.paths import (
    LEGACY_PENALTY,
    TEST_PENALTY,
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
    "query_identifiers",
    "signals_order",
]

# A chunk that defines the symbol asked for jumps ahead of any mere use.
DEFINITION_BOOST = 1.0
# A definition whose qualifier differs from the query's (`Prog.PossibleMatchRange` for
# `DFA::PossibleMatchRange`) is the name asked for by its last part only: beside one that
# the query's qualifier names it earns this share of the boost. (With none beside it, the
# qualifier may name a variable, `req.params` for `Request.params`, and it earns it all.)
OTHER_QUALIFIER_SCALE = 0.5
# A declaration without a body (a header's prototype, a method declared in its class)
# earns this share when a definition of the name with a body is among the candidates, at
# least as well qualified: the header announced it, the definition is where it is.
PROTOTYPE_SCALE = 0.5
# A query naming a member by its owner and its name, as two words in a row ("RotatingFileHandler
# rotate", "session send"), asks for that member as `Owner.name` would: a definition whose
# last two parts are those words earns the whole boost, even inside a sentence, where the
# owner's own definition, named by one word, earns EMBEDDED_IDENTIFIER_SCALE of it.
MEMBER_BOOST = 1.0
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

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#|\\)[A-Za-z_$][\w$]*)*")


def is_symbol_query(query: str) -> bool:
    """True when the whole query is one identifier: `Session`, `parse_url`, `a.b::c`, `A\\B`."""
    text = query.strip().strip("`'\"()")
    if not _IDENTIFIER.fullmatch(text):
        return False
    return bool(
        any(sep in text for sep in (".", "::", "->", "#", "\\", "_"))
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


# A scoring signal adds to or multiplies the candidates' scores in place, per file where
# its verdict is one per file, on whole arrays: each score meets the same operations, in
# the same order, as it did one candidate at a time, so it keeps the same bits.
ScoringSignal = Callable[[_Query, CandidateBatch, np.ndarray], None]


def _coherence(query: _Query, batch: CandidateBatch, scores: np.ndarray) -> None:
    """A file's best chunk gains in proportion to the file's share of the candidate score."""
    # Each file's fused scores summed in candidate order; its best the first of its highest.
    per_file = np.bincount(batch.file_of, weights=batch.scores, minlength=len(batch.paths))
    by_file = np.lexsort((-batch.scores, batch.file_of))
    files = batch.file_of[by_file]
    best = by_file[_run_starts(files)]
    most = per_file.max()
    if most > 0:
        scores[best] += COHERENCE_BOOST * query.top * per_file / most


def _definition(query: _Query, batch: CandidateBatch, scores: np.ndarray) -> None:
    """A chunk that defines the symbol asked for beats chunks that merely use it; of
    definitions, those the query's qualifier names (`DFA::run`) beat the others (`Prog.run`),
    and one with a body beats a prototype of it. A member the query names by two words
    (`MEMBER_BOOST`) counts as asked for whole; a chunk named both ways takes the larger."""
    if query.symbol:
        asked = [query.text.strip().strip("`'\"()")]
        scale = 1.0
    else:
        asked = query_identifiers(query.text)
        scale = EMBEDDED_IDENTIFIER_SCALE
    wanted = {tuple(part.lower() for part in name_segments(name)) for name in asked}
    boosts = np.zeros(len(scores))
    if wanted:
        names = {n.lower() for n in asked} | {name[-1] for name in wanted}
        _boost_definitions(batch, wanted, names, DEFINITION_BOOST * scale * query.top, boosts)
    members = set() if query.symbol else _member_pairs(query.text)
    if members:
        names = {name for pair in members for name in pair}
        _boost_members(batch, members, names, MEMBER_BOOST * query.top, boosts)
    scores += boosts


def _boost_definitions(
    batch: CandidateBatch,
    wanted: set[tuple[str, ...]],
    names: set[str],
    bonus: float,
    boosts: np.ndarray,
) -> None:
    """Set the boost of each chunk declaring a name `wanted` by its last part."""
    defining = np.flatnonzero(batch.declaring({name[-1] for name in wanted}))
    if not len(defining):
        return
    matches = [(p, *_match(batch.place(p), wanted)) for p in defining.tolist()]
    if not any(fits for _, _, fits, _ in matches):  # the qualifier names none of them
        matches = [(position, path, True, has_body) for position, path, _, has_body in matches]
    # Of the definitions with a body among them, whether their qualifiers fit.
    bodied = {fits for _, _, fits, has_body in matches if has_body}
    for position, path, fits, has_body in matches:
        share = 1.0 if fits else OTHER_QUALIFIER_SCALE
        if not has_body and bodied and max(bodied) >= fits:  # one fits at least as well
            share *= PROTOTYPE_SCALE
        if any(_file_named_for(path, n) for n in names):
            share *= 1 + DEFINITION_FILE_BONUS  # named for it too
        boosts[position] = bonus * share


def _member_pairs(query: str) -> set[tuple[str, str]]:
    """Each two words in a row that could name an owner and its member, lower-cased."""
    words = [word.lower() for word in re.findall(r"[A-Za-z_$][\w$]*", query)]
    return {
        (owner, member)
        for owner, member in pairwise(words)
        if len(owner) > 1 and len(member) > 1 and not {owner, member} & STOPWORDS
    }


def _boost_members(
    batch: CandidateBatch,
    members: set[tuple[str, str]],
    names: set[str],
    bonus: float,
    boosts: np.ndarray,
) -> None:
    """Raise to `bonus` the boost of each chunk declaring `Owner.member` for a pair of
    `members` (its last two parts those words, in that order): a definition without a body
    earns PROTOTYPE_SCALE of it beside one with a body."""
    found = []
    for position in np.flatnonzero(batch.declaring({m for _, m in members})).tolist():
        path, _start, _end, symbols, prototypes = batch.place(position)
        named = [
            symbol
            for symbol in symbols
            if tuple(part.lower() for part in name_segments(symbol)[-2:]) in members
        ]
        if named:
            found.append((position, path, any(s not in prototypes for s in named)))
    bodied = any(has_body for _, _, has_body in found)
    for position, path, has_body in found:
        share = PROTOTYPE_SCALE if bodied and not has_body else 1.0
        if any(_file_named_for(path, n) for n in names):
            share *= 1 + DEFINITION_FILE_BONUS
        boosts[position] = max(boosts[position], bonus * share)


@lru_cache(maxsize=65536)
def in_test_module(symbols: tuple[str, ...]) -> bool:
    """Whether every name a chunk declares lies in a module named `tests` or `test` (Rust's
    `tests.parses_a_header`, Zig's `test."parses a header"`: `wherein.inline_tests`)."""
    return bool(symbols) and all(inline_test(name_segments(symbol)) for symbol in symbols)


def _match(place: ChunkPlace, wanted: set[tuple[str, ...]]) -> tuple[str, bool, bool]:
    """(path, fits, has body) of a chunk that declares a name `wanted` by its last part.

    It fits when one of its names has no part that differs from a name wanted: one ends
    with the other at a boundary of parts (`re2.DFA.Run` and `DFA::Run`, `Run` and
    `DFA::Run`), where `Prog.Run` differs from `DFA::Run` in its qualifier. It has a body
    when one of the names that match best is not among its prototypes.
    """
    path, _start, _end, symbols, prototypes = place
    last = {name[-1] for name in wanted}
    fitting, other = [], []
    for symbol in symbols:
        parts = [part.lower() for part in name_segments(symbol)]
        if parts[-1] not in last:
            continue
        fits = any(parts[-len(name) :] == list(name[-len(parts) :]) for name in wanted)
        (fitting if fits else other).append(symbol)
    best = fitting or other
    return path, bool(fitting), any(symbol not in prototypes for symbol in best)


def _path(query: _Query, batch: CandidateBatch, scores: np.ndarray) -> None:
    """A file whose path names the query's keywords is evidence (not for a symbol query)."""
    if query.symbol:
        return
    keys = _keyword_keys(_keywords(query.text))
    # A path meeting no keyword at all (most of them) is passed over at one look.
    stems = frozenset().union(*(stems for stems, _ in keys))
    prefixes = {prefix for _, prefix in keys if prefix is not None}
    boosts = np.zeros(len(batch.paths))
    boosted = np.zeros(len(batch.paths), dtype=bool)
    for file, path in enumerate(batch.paths):
        facts = path_facts(path)
        if facts.words.isdisjoint(stems) and facts.prefixes.isdisjoint(prefixes):
            continue
        ratio = _path_ratio(facts, keys)
        if ratio >= PATH_MIN_RATIO:
            boosts[file] = PATH_BOOST * query.top * ratio
            boosted[file] = True
    if boosted.any():
        chosen = boosted[batch.file_of]
        scores[chosen] += boosts[batch.file_of[chosen]]


def _penalty(query: _Query, batch: CandidateBatch, scores: np.ndarray) -> None:
    """Tests, examples, docs, legacy and older copies count for less unless asked for; so
    do tests written inside a source file (Rust's `#[cfg(test)] mod tests`), whose path
    cannot tell."""
    wants = wanted_kinds(query.text)
    penalties = np.array([path_penalty(path, wants) for path in batch.paths])
    scores *= penalties[batch.file_of]
    if "test" not in wants:
        # Only where the path did not already count it less: one array step, then a place
        # looked up for each of those (a Python step each for every candidate was 0.2 ms of
        # a warm search of the standard library).
        place = batch.place
        for position in np.flatnonzero(penalties[batch.file_of] == 1.0).tolist():
            if in_test_module(place(position)[3]):
                scores[position] *= TEST_PENALTY
    if query.copies:
        words = {w.lower() for w in re.findall(r"\w+", query.text)}
        older = np.array([in_copy(path, query.copies, words) for path in batch.paths])
        scores[older[batch.file_of]] *= LEGACY_PENALTY


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
    return list(signals_order(query, batch_of(candidates), enabled, copies))


def signals_order(
    query: str,
    batch: CandidateBatch,
    enabled: frozenset[str] = SIGNALS,
    copies: frozenset[str] = frozenset(),
) -> Iterator[Candidate]:
    """`apply_signals` of a batch, each candidate made only when it is reached: a search
    keeps the first few that do not overlap (of 150-200), so the rest are never made.

    The path signals are worked out once per file, not per chunk, from facts each path
    keeps for the process (`path_facts`).
    """
    if not len(batch):
        return iter(())
    facts = _Query(
        text=query,
        top=float(batch.scores.max()) or 1.0,
        symbol=is_symbol_query(query),
        copies=copies,
    )
    scores = batch.scores.copy()
    for name, signal in SCORING_SIGNALS.items():
        if name in enabled:
            signal(facts, batch, scores)
    # Best first; of equal scores the earlier first.
    ordered = np.argsort(-scores, kind="stable")
    scores = scores[ordered]
    if "diversity" in enabled:
        ordered, scores = _diversified(batch.file_of[ordered], ordered, scores)
    return map(batch.candidate, ordered.tolist(), scores.tolist())


def _diversified(
    files: np.ndarray, ordered: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each further chunk of one file counts for DIVERSITY_DECAY of the one before it:
    (`ordered` re-ordered, their scores), for candidates best first and their `files`."""
    by_file = np.argsort(files, kind="stable")
    grouped = files[by_file]
    starts = _run_starts(grouped)
    earlier = np.empty(len(files), dtype=np.intp)  # of the same file, before each one
    earlier[by_file] = np.arange(len(files)) - np.repeat(starts, np.diff(starts, append=len(files)))
    decayed = scores * _decay_powers(len(files))[earlier]
    again = np.argsort(-decayed, kind="stable")
    return ordered[again], decayed[again]


def _run_starts(grouped: np.ndarray) -> np.ndarray:
    """Where each run of equal values of `grouped` begins (`np.r_` built the same mask in
    Python, at each of a warm search's three calls)."""
    starts = np.empty(len(grouped), dtype=bool)
    starts[:1] = True
    np.not_equal(grouped[1:], grouped[:-1], out=starts[1:])
    return np.flatnonzero(starts)


@cache
def _decay_powers(count: int) -> np.ndarray:
    """DIVERSITY_DECAY**n for n below `count`, each as Python works it out (numpy's `power`
    may run other code over an array, and a score must keep its bits)."""
    return np.array([DIVERSITY_DECAY**n for n in range(count)])
