"""The ranking signals give the same order, to the last bit of score, as before they were split.

A fixed set of fourteen candidates (a definition, its uses, tests, docs, examples, a
package marker, a type stub, a vendored and an older copy) ranked for seven queries
with every signal on, none, and each switched off alone. The orders were recorded from
the single-function `apply_signals` that the signal registry replaced; a change that moves any of
them changes the benchmark too (`scripts/bench.py`).
"""

from __future__ import annotations

import hashlib

import pytest

from wherein.ranking.signals import SIGNALS, Candidate, apply_signals, copied_directories

CANDIDATES = [
    Candidate(1, "src/session/sessions.py", 1, 40, ("Session", "Session.send"), 0.031),
    Candidate(2, "src/session/sessions.py", 41, 90, ("Session.close",), 0.029),
    Candidate(3, "src/session/sessions.py", 91, 120, ("merge_settings",), 0.027),
    Candidate(4, "src/client.py", 1, 30, ("send_all",), 0.030),
    Candidate(5, "tests/test_sessions.py", 1, 50, ("test_session_send",), 0.032),
    Candidate(6, "docs/sessions.md", 1, 20, (), 0.028),
    Candidate(7, "examples/retry_demo.py", 1, 20, ("main",), 0.026),
    Candidate(8, "src/retry/__init__.py", 1, 10, (), 0.025),
    Candidate(9, "src/retry/policy.py", 1, 60, ("RetryPolicy", "RetryPolicy.backoff"), 0.024),
    Candidate(10, "src/v1/sessions.py", 1, 40, ("Session",), 0.030),
    Candidate(11, "types/index.d.ts", 1, 40, ("Session",), 0.022),
    Candidate(12, "vendor/urllib3/retry.py", 1, 40, ("Retry",), 0.023),
    Candidate(13, "src/cookies.py", 1, 40, ("extract_cookies",), 0.021),
    Candidate(14, "src/utils.py", 1, 40, ("parse_url",), 0.020),
]
PATHS = [c.path for c in CANDIDATES] + [
    "src/v1/client.py",
    "src/v1/utils.py",
    "src/v1/cookies.py",
    "src/utils.py",
    "src/client.py",
]
QUERIES = [
    "Session",
    "how does the session retry on failure",
    "RetryPolicy backoff",
    "cookie parsing in parse_url",
    "session tests",
    "v1 sessions docs",
    "parse_url",
]
SETS = {"all": SIGNALS, "none": frozenset()} | {f"no-{s}": SIGNALS - {s} for s in sorted(SIGNALS)}

EXPECTED = {
    ("Session", "all"): [1, 4, 9, 10, 13, 14, 11, 6, 2, 8, 5, 7, 12, 3],
    ("Session", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("Session", "no-coherence"): [1, 4, 9, 10, 13, 14, 11, 2, 6, 8, 5, 7, 12, 3],
    ("Session", "no-definition"): [1, 4, 9, 13, 14, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("Session", "no-diversity"): [1, 4, 2, 3, 9, 10, 13, 14, 11, 6, 8, 5, 7, 12],
    ("Session", "no-path"): [1, 4, 9, 10, 13, 14, 11, 6, 2, 8, 5, 7, 12, 3],
    ("Session", "no-penalty"): [1, 10, 11, 5, 4, 6, 7, 8, 9, 12, 13, 14, 2, 3],
    ("how does the session retry on failure", "all"): [
        1,
        4,
        9,
        13,
        14,
        6,
        2,
        8,
        5,
        10,
        7,
        12,
        11,
        3,
    ],
    ("how does the session retry on failure", "none"): [
        5,
        1,
        4,
        10,
        2,
        6,
        3,
        7,
        8,
        9,
        12,
        11,
        13,
        14,
    ],
    ("how does the session retry on failure", "no-coherence"): [
        1,
        4,
        9,
        13,
        14,
        2,
        6,
        8,
        5,
        10,
        7,
        12,
        3,
        11,
    ],
    ("how does the session retry on failure", "no-definition"): [
        1,
        4,
        9,
        13,
        14,
        6,
        2,
        8,
        5,
        10,
        7,
        12,
        11,
        3,
    ],
    ("how does the session retry on failure", "no-diversity"): [
        1,
        2,
        3,
        4,
        9,
        13,
        14,
        6,
        8,
        5,
        10,
        7,
        12,
        11,
    ],
    ("how does the session retry on failure", "no-path"): [
        1,
        4,
        9,
        13,
        14,
        6,
        2,
        8,
        5,
        10,
        7,
        11,
        12,
        3,
    ],
    ("how does the session retry on failure", "no-penalty"): [
        1,
        5,
        10,
        6,
        7,
        4,
        8,
        9,
        12,
        11,
        13,
        14,
        2,
        3,
    ],
    ("RetryPolicy backoff", "all"): [9, 1, 4, 13, 14, 8, 6, 2, 7, 5, 12, 10, 11, 3],
    ("RetryPolicy backoff", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("RetryPolicy backoff", "no-coherence"): [9, 1, 4, 13, 14, 8, 2, 6, 7, 5, 12, 10, 11, 3],
    ("RetryPolicy backoff", "no-definition"): [1, 9, 4, 13, 14, 8, 6, 2, 7, 5, 12, 10, 11, 3],
    ("RetryPolicy backoff", "no-diversity"): [9, 1, 4, 2, 3, 13, 14, 8, 6, 7, 5, 12, 10, 11],
    ("RetryPolicy backoff", "no-path"): [9, 1, 4, 13, 14, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("RetryPolicy backoff", "no-penalty"): [9, 1, 7, 8, 5, 12, 4, 10, 6, 11, 13, 14, 2, 3],
    ("cookie parsing in parse_url", "all"): [14, 1, 4, 13, 9, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("cookie parsing in parse_url", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("cookie parsing in parse_url", "no-coherence"): [
        14,
        1,
        4,
        13,
        9,
        2,
        6,
        8,
        5,
        10,
        7,
        11,
        12,
        3,
    ],
    ("cookie parsing in parse_url", "no-definition"): [
        1,
        4,
        13,
        9,
        14,
        6,
        2,
        8,
        5,
        10,
        7,
        11,
        12,
        3,
    ],
    ("cookie parsing in parse_url", "no-diversity"): [
        14,
        1,
        4,
        2,
        13,
        3,
        9,
        6,
        8,
        5,
        10,
        7,
        11,
        12,
    ],
    ("cookie parsing in parse_url", "no-path"): [14, 1, 4, 9, 13, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("cookie parsing in parse_url", "no-penalty"): [14, 1, 5, 4, 10, 6, 7, 13, 8, 9, 12, 11, 2, 3],
    ("session tests", "all"): [5, 1, 4, 9, 13, 14, 6, 2, 8, 10, 3, 7, 11, 12],
    ("session tests", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("session tests", "no-coherence"): [5, 1, 4, 9, 13, 14, 2, 6, 8, 10, 3, 7, 11, 12],
    ("session tests", "no-definition"): [5, 1, 4, 9, 13, 14, 6, 2, 8, 10, 3, 7, 11, 12],
    ("session tests", "no-diversity"): [5, 1, 2, 3, 4, 9, 13, 14, 6, 8, 10, 7, 11, 12],
    ("session tests", "no-path"): [1, 5, 4, 9, 13, 14, 6, 2, 8, 10, 7, 11, 12, 3],
    ("session tests", "no-penalty"): [5, 1, 10, 6, 4, 7, 8, 9, 12, 11, 13, 14, 2, 3],
    ("v1 sessions docs", "all"): [6, 1, 10, 4, 9, 13, 14, 2, 8, 5, 3, 7, 11, 12],
    ("v1 sessions docs", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("v1 sessions docs", "no-coherence"): [6, 1, 10, 4, 9, 13, 14, 2, 8, 5, 3, 7, 11, 12],
    ("v1 sessions docs", "no-definition"): [6, 1, 10, 4, 9, 13, 14, 2, 8, 5, 3, 7, 11, 12],
    ("v1 sessions docs", "no-diversity"): [6, 1, 10, 2, 3, 4, 9, 13, 14, 8, 5, 7, 11, 12],
    ("v1 sessions docs", "no-path"): [1, 4, 10, 6, 9, 13, 14, 2, 8, 5, 7, 11, 12, 3],
    ("v1 sessions docs", "no-penalty"): [6, 1, 5, 10, 4, 7, 8, 9, 12, 11, 13, 14, 2, 3],
    ("parse_url", "all"): [14, 1, 4, 9, 13, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("parse_url", "none"): [5, 1, 4, 10, 2, 6, 3, 7, 8, 9, 12, 11, 13, 14],
    ("parse_url", "no-coherence"): [14, 1, 4, 9, 13, 2, 6, 8, 5, 10, 7, 11, 12, 3],
    ("parse_url", "no-definition"): [1, 4, 9, 13, 14, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("parse_url", "no-diversity"): [14, 1, 4, 2, 3, 9, 13, 6, 8, 5, 10, 7, 11, 12],
    ("parse_url", "no-path"): [14, 1, 4, 9, 13, 6, 2, 8, 5, 10, 7, 11, 12, 3],
    ("parse_url", "no-penalty"): [14, 1, 5, 4, 10, 6, 7, 8, 9, 12, 11, 13, 2, 3],
}
# sha256 over every case's (chunk_id, score) pairs, in the order above. Recorded again when
# "RetryPolicy backoff" came to name the member `RetryPolicy.backoff` (`MEMBER_BOOST`): its
# chunk's score rose, every order stayed (with the member pairs off, the old digest held).
SCORES_DIGEST = "1028e411dae16cab0739e2d26d57797beaced3a5b6e9e8f9462c7da048c53e98"


def _rank(query, name):
    copies = copied_directories([*PATHS, "src/sessions.py"])
    return apply_signals(query, CANDIDATES, SETS[name], copies)


@pytest.mark.parametrize(("query", "name"), list(EXPECTED))
def test_signals_keep_the_recorded_order(query, name):
    assert [c.chunk_id for c in _rank(query, name)] == EXPECTED[query, name]


def test_signals_keep_the_recorded_scores_to_the_bit():
    digest = hashlib.sha256()
    for query, name in EXPECTED:
        digest.update(repr([(c.chunk_id, c.score) for c in _rank(query, name)]).encode())
    assert digest.hexdigest() == SCORES_DIGEST
