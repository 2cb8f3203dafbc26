"""The in-process MiniLM: each text run alone on the int8 graph, the same vector in any call."""

from __future__ import annotations

import numpy as np
import pytest

from wherein.embedding import minilm, stamp

TEXTS = [
    "how are retries handled",
    "Session",
    "def backoff(attempt: int) -> float:\n    return min(30.0, 0.5 * 2**attempt)\n",
    'class RetryPolicy:\n    """Retry idempotent requests on 502, 503 and 504."""\n\n'
    "    def __init__(self, attempts=5):\n        self.attempts = attempts\n" * 4,
]


@pytest.fixture(scope="module")
def embedder():
    return minilm.MiniLMEmbedder()


def test_a_texts_vector_does_not_depend_on_the_texts_beside_it(embedder):
    """Each text runs alone (the graph quantizes a run's activations with one scale), and
    a call of several spreads them over threads: the same vector, to the bit, either way."""
    together = embedder.embed(TEXTS * 3)
    alone = np.concatenate([embedder.embed([text]) for text in TEXTS])
    assert np.array_equal(together[: len(TEXTS)], alone)
    assert np.array_equal(together[len(TEXTS) : 2 * len(TEXTS)], alone)
    assert together.shape == (len(TEXTS) * 3, minilm.DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_an_empty_text_is_embedded_without_failing(embedder):
    vectors = embedder.embed(["", "def f(): pass"])
    assert vectors.shape == (2, minilm.DIMENSION) and np.isfinite(vectors).all()


def test_meaning_still_ranks(embedder):
    vectors = embedder.embed(TEXTS)
    assert vectors[0] @ vectors[3] > vectors[0] @ vectors[1]


def test_the_second_start_hashes_nothing(monkeypatch):
    hashed = []
    real = stamp.sha256_file
    monkeypatch.setattr(stamp, "sha256_file", lambda path: hashed.append(path) or real(path))
    minilm.MiniLMEmbedder()
    names = sorted(p.name for p in hashed)
    assert len(names) == 3 and names[1:] == ["model.onnx", "tokenizer.json"]
    assert names[0].startswith("minilm-l6-") and names[0].endswith(".onnx")  # the int8 graph
    minilm.MiniLMEmbedder()
    assert len(hashed) == 3


def test_no_thread_outlives_a_call(embedder):
    """A thread left alive would make the next index's chunking workers spawn, not fork."""
    import threading

    before = threading.active_count()
    embedder.embed(TEXTS * 2)
    assert threading.active_count() == before
    assert not [t for t in threading.enumerate() if t.name.startswith("wherein-minilm")]
