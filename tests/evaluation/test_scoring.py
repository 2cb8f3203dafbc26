"""Scores over distinct files, worked out by hand; the lexical split; the two baselines."""

from __future__ import annotations

import pytest

from tests.helpers import write_tree
from wherein.evaluation.baselines import Bm25Files, GrepFiles
from wherein.evaluation.corpus import Corpus
from wherein.evaluation.lexical import code_words, lexical_reason
from wherein.evaluation.scoring import score_answer, summarize

SIZES = {"a.py": 1000, "b.py": 500, "c.py": 2000, "CHANGELOG.md": 300}


def size(path: str) -> int:
    return SIZES.get(path, 100)


def test_release_notes_are_dropped_and_chunks_of_one_file_count_once():
    results = [
        ("CHANGELOG.md", 80),
        ("b.py", 40),
        ("b.py", 60),
        ("a.py", 50),
        ("c.py", 10),
    ]
    answer = score_answer(results, frozenset({"a.py"}), size)
    assert answer.rank == 2  # b.py, then a.py: the release notes and b's second chunk vanish
    assert answer.files == ("b.py", "a.py", "c.py")
    assert answer.returned_chars == 40 + 60 + 50 + 10
    assert answer.file_chars == 500 + 1000 + 2000


def test_only_the_first_ten_results_count():
    results = [(f"f{i}.py", 1) for i in range(10)] + [("a.py", 1)]
    assert score_answer(results, frozenset({"a.py"}), size).rank is None
    assert score_answer(results[1:], frozenset({"a.py"}), size).rank == 10


def test_summaries_are_the_hand_computed_recalls_and_mrr():
    gold = frozenset({"a.py"})
    answers = [
        score_answer([("a.py", 10)], gold, size, ms=4.0),  # rank 1
        score_answer([("b.py", 10), ("a.py", 10)], gold, size, ms=2.0),  # rank 2
        score_answer([(f"f{i}.py", 10) for i in range(5)] + [("a.py", 10)], gold, size, ms=1.0),
        score_answer([("b.py", 30)], gold, size, ms=3.0),  # missed
    ]
    metrics = summarize(answers)
    assert metrics.queries == 4
    assert (metrics.r1, metrics.r5, metrics.r10) == (0.25, 0.5, 0.75)
    assert metrics.mrr == pytest.approx((1 + 1 / 2 + 1 / 6) / 4)
    assert metrics.returned_chars == (10 + 20 + 60 + 30) / 4
    assert metrics.file_chars == (1000 + 1500 + 500 + 1000 + 500) / 4
    assert metrics.p50_ms == 2.5
    assert summarize([]) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Fix `select_proxy` for IPv6", ["select_proxy", "IPv6"]),
        ("HTTPDigestAuth keeps the nonce count", ["HTTPDigestAuth"]),
        ("Retry on reset in Session.send()", ["Session.send"]),
        ("Call parse() once, e.g. at start, not v2.0 style", ["parse"]),
        ("Retry idempotent requests on connection reset", []),
    ],
)
def test_code_shaped_words(text, words):
    assert code_words(text) == words


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Make `backoff_delay` grow by half each step", "identifier:backoff_delay"),
        ("retry.py: wait longer between attempts", "path:retry.py"),
        ("retry: wait longer between attempts", "path:retry"),
        ("Wait longer in app/retry.py between attempts", "path:retry.py"),
        ("Make `jitter_ms` random", None),  # code-shaped, but not in the gold file
        ("Retry idempotent requests on connection reset", None),  # "Retry" is English here
    ],
)
def test_a_question_is_lexical_when_it_names_its_answer(text, reason):
    gold = ["app/retry.py"]
    texts = {"app/retry.py": "def backoff_delay(attempt):\n    return 2 ** attempt\n"}
    assert lexical_reason(text, gold, texts) == reason


@pytest.fixture
def corpus(tmp_path):
    files = {
        "app/retry.py": "def backoff(attempt):\n    # wait before the next retry\n    retry()\n",
        "app/routing.py": "class Router:\n    def route(self, path):\n        return path\n",
        "app/cookies.py": "def cookie_header(jar):\n    return '; '.join(jar)\n",
        "README.md": "Retries wait and retry again; routes map paths.\n",
    }
    root = write_tree(tmp_path / "ws", files)
    return Corpus(root, sorted(files), max_bytes=1 << 20)


def test_bm25_over_files_ranks_the_file_that_holds_the_terms(corpus):
    bm25 = Bm25Files(corpus)
    try:
        assert bm25.search("where does the retry backoff wait", 10)[:2] == [
            "app/retry.py",
            "README.md",
        ]
        assert bm25.search("cookie header", 10) == ["app/cookies.py"]
        assert bm25.search("nothing matches zebra", 10) == []
    finally:
        bm25.close()


def test_grep_counts_words_matched_then_occurrences_then_path(corpus):
    grep = GrepFiles(corpus)
    # "retry": retry.py twice, README twice ("Retries", "retry"); "wait": both once; "path":
    # routing.py (twice) and README ("paths").
    assert grep.search("retry and wait on the path", 10) == [
        "README.md",
        "app/retry.py",
        "app/routing.py",
    ]
    assert grep.search("an of to", 10) == []  # stopwords and short words only
