"""The signals over arrays rank as they did one candidate at a time, to the last bit.

`reference_order` is the per-candidate implementation the arrays replaced (7dc0a8a),
kept here as the oracle: random candidate lists (shared files, equal scores, declared
names the queries ask for, older copies) must come out in the same order with the same
scores, from a batch of tuples and from a resident process's table of places alike.
"""

from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest

from wherein.ranking import signals as s
from wherein.ranking.candidates import Candidate, PlaceTable, batch_of
from wherein.ranking.paths import in_copy, path_facts, path_penalty, wanted_kinds
from wherein.ranking.signals import SIGNALS, apply_signals, signals_order
from wherein.ranking.tokens import STOPWORDS


def reference_order(query, candidates, enabled=SIGNALS, copies=frozenset()):
    """The signals one candidate at a time, as they were before the arrays."""
    if not candidates:
        return []
    top = max(c.score for c in candidates) or 1.0
    symbol = s.is_symbol_query(query)
    scores = [c.score for c in candidates]
    if "coherence" in enabled:
        per_file, best_of_file = {}, {}
        for i, c in enumerate(candidates):
            per_file[c.path] = per_file.get(c.path, 0.0) + c.score
            best = best_of_file.get(c.path)
            if best is None or c.score > candidates[best].score:
                best_of_file[c.path] = i
        most = max(per_file.values())
        for path, best in best_of_file.items():
            scores[best] += s.COHERENCE_BOOST * top * per_file[path] / most
    if "definition" in enabled:
        if symbol:
            asked = [query.strip().strip("`'\"()")]
            scale = 1.0
        else:
            asked = s.query_identifiers(query)
            scale = s.EMBEDDED_IDENTIFIER_SCALE
        wanted = [re.split(r"\.|::|->|#|\\", n.lower()) for n in asked]
        names = {n.lower() for n in asked} | {w[-1] for w in wanted}
        boost = {}  # candidate: what it gains
        found = {}  # candidate: (its name fits the query's qualifier, it has a body)
        for i, c in enumerate(candidates):
            matching = [
                name
                for name in c.symbols
                if any(re.split(r"\.|::|->|#|\\", name.lower())[-1] == w[-1] for w in wanted)
            ]
            # The names agree on every part they both have: `re2.DFA.run` and `DFA::run`.
            fitting = [
                name
                for name in matching
                for w in wanted
                if all(
                    a == b
                    for a, b in zip(
                        reversed(re.split(r"\.|::|->|#|\\", name.lower())),
                        reversed(w),
                        strict=False,
                    )
                )
            ]
            if matching:
                best = fitting or matching
                found[i] = (bool(fitting), any(n not in c.prototypes for n in best))
        if not any(fits for fits, _ in found.values()):  # none fits: as if all did
            found = {i: (True, has_body) for i, (_, has_body) in found.items()}
        for i, (fits, has_body) in found.items():
            share = 1.0 if fits else s.OTHER_QUALIFIER_SCALE
            # A prototype earns less beside a definition with a body fitting as well.
            if not has_body and any(b and (f or not fits) for f, b in found.values()):
                share *= s.PROTOTYPE_SCALE
            if any(s._file_named_for(candidates[i].path, n) for n in names):
                share *= 1 + s.DEFINITION_FILE_BONUS
            boost[i] = s.DEFINITION_BOOST * scale * top * share
        # Two words in a row naming an owner's member: the larger of the two boosts.
        words = [w.lower() for w in re.findall(r"[A-Za-z_$][\w$]*", query)]
        pairs = set()
        if not symbol:
            pairs = {
                (a, b)
                for a, b in pairwise(words)
                if len(a) > 1 and len(b) > 1 and a not in STOPWORDS and b not in STOPWORDS
            }
        members = {}  # candidate: it has a body
        for i, c in enumerate(candidates):
            named = [
                n for n in c.symbols if tuple(re.split(r"\.|::|->|#|\\", n.lower())[-2:]) in pairs
            ]
            if named:
                members[i] = any(n not in c.prototypes for n in named)
        for i, has_body in members.items():
            share = s.PROTOTYPE_SCALE if any(members.values()) and not has_body else 1.0
            if any(s._file_named_for(candidates[i].path, n) for pair in pairs for n in pair):
                share *= 1 + s.DEFINITION_FILE_BONUS
            boost[i] = max(boost.get(i, 0.0), s.MEMBER_BOOST * top * share)
        for i, value in boost.items():
            scores[i] += value
    if "path" in enabled and not symbol:
        keys = s._keyword_keys(s._keywords(query))
        for i, c in enumerate(candidates):
            ratio = s._path_ratio(path_facts(c.path), keys)
            if ratio >= s.PATH_MIN_RATIO:
                scores[i] += s.PATH_BOOST * top * ratio
    if "penalty" in enabled:
        wants = wanted_kinds(query)
        words = {w.lower() for w in re.findall(r"\w+", query)} if copies else set()
        for i, c in enumerate(candidates):
            scores[i] *= path_penalty(c.path, wants)
            if copies and in_copy(c.path, copies, words):
                scores[i] *= s.LEGACY_PENALTY
    ordered = sorted(range(len(candidates)), key=scores.__getitem__, reverse=True)
    if "diversity" not in enabled:
        return [candidates[i]._replace(score=scores[i]) for i in ordered]
    taken, decayed = {}, []
    for i in ordered:
        n = taken.get(candidates[i].path, 0)
        taken[candidates[i].path] = n + 1
        decayed.append(scores[i] * s.DIVERSITY_DECAY**n)
    again = sorted(range(len(ordered)), key=decayed.__getitem__, reverse=True)
    return [candidates[ordered[j]]._replace(score=decayed[j]) for j in again]


PATHS = [
    "src/session/sessions.py",
    "src/client.py",
    "src/retry/__init__.py",
    "src/retry/policy.py",
    "src/v1/sessions.py",
    "tests/test_sessions.py",
    "docs/sessions.md",
    "examples/retry_demo.py",
    "types/index.d.ts",
    "vendor/urllib3/retry.py",
]
NAMES = ["Session", "Session.send", "RetryPolicy", "parse_url", "send_all", "retry", "main"]
NAMES += ["Client.send", "http::Session", "pool.Client.send"]
QUERIES = [
    "Session",
    "how does the session retry on failure",
    "RetryPolicy backoff",
    "parse_url in the client",
    "session tests",
    "v1 sessions docs",
    "retry",
    "Client::send",
    "how does self.send reach Session.send",
    "http\\Session",
    "Session send",
    "where does the client send a request",
]
SETS = [SIGNALS, frozenset(), *(SIGNALS - {name} for name in SIGNALS)]
COPIES = [frozenset(), frozenset({"src/v1"})]


def random_candidates(rng: random.Random) -> list[Candidate]:
    count = rng.randint(1, 60)
    ids = rng.sample(range(1, 10_000), count)
    # Scores from a few values, so that many are equal, or from fused ranks.
    levels = [1 / (60 + r) for r in range(1, 8)]
    candidates = []
    for chunk_id in ids:
        score = rng.choice(levels) if rng.random() < 0.5 else 1 / (60 + rng.randint(1, 100))
        names = tuple(rng.sample(NAMES, rng.randint(0, 2)))
        bodiless = tuple(name for name in names if rng.random() < 0.4)
        start = rng.randint(1, 400)
        end = start + rng.randint(0, 40)
        candidates.append(
            Candidate(chunk_id, rng.choice(PATHS), start, end, names, score, bodiless)
        )
    return candidates


@pytest.mark.parametrize("seed", range(40))
def test_arrays_rank_as_one_candidate_at_a_time(seed):
    rng = random.Random(seed)
    candidates = random_candidates(rng)
    table = PlaceTable({c.chunk_id: (*c[1:5], c.prototypes) for c in candidates})
    fused = {c.chunk_id: c.score for c in candidates}
    for query in QUERIES:
        for enabled in SETS:
            for copies in COPIES:
                expected = reference_order(query, candidates, enabled, copies)
                assert apply_signals(query, candidates, enabled, copies) == expected
                from_table = list(signals_order(query, table.batch(fused), enabled, copies))
                assert from_table == expected


def test_a_table_batch_leaves_out_chunks_it_does_not_know_and_keeps_the_fused_order():
    places = {
        7: ("a.py", 1, 9, ("parse", "Parser.run"), ("Parser.run",)),
        3: ("b.py", 1, 5, (), ()),
        12: ("a.py", 10, 20, (), ()),
    }
    table = PlaceTable(places)
    batch = table.batch({12: 0.5, 99: 0.4, 3: 0.3, 7: 0.2})  # 99: gone since the table
    assert batch.ids.tolist() == [12, 3, 7]
    assert batch.paths == ["a.py", "b.py"]  # in order of each file's first candidate
    assert batch.file_of.tolist() == [0, 1, 0]
    assert batch.declaring({"parse"}).tolist() == [False, False, True]
    expected = Candidate(7, "a.py", 1, 9, ("parse", "Parser.run"), 0.25, ("Parser.run",))
    assert batch.candidate(2, 0.25) == expected
    assert len(PlaceTable({}).batch({5: 1.0})) == 0
    assert list(signals_order("parse", PlaceTable({}).batch({}))) == []


def test_a_table_knows_the_names_its_chunks_declare_as_the_tuples_do():
    names = ["A.b", "b", "Cde", "x::Y", "p\\Q"]
    places = {n: ("pkg/m.py", n, n, (name,), ()) for n, name in enumerate(names)}
    table_batch = PlaceTable(places).batch({n: 1.0 for n in places})
    tuple_batch = batch_of([Candidate(n, *place[:4], 1.0) for n, place in places.items()])
    for asked in ({"b"}, {"a.b"}, {"y"}, {"q"}, {"cde", "zz"}, {"zz"}, set()):
        assert table_batch.declaring(asked).tolist() == tuple_batch.declaring(asked).tolist()
