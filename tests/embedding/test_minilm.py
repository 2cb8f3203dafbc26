"""The in-process MiniLM: a light session for queries, the full one for batches, same vectors."""

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


def test_a_query_runs_on_the_light_session_and_a_batch_opens_the_full_one():
    embedder = minilm.MiniLMEmbedder()
    light = embedder.embed(TEXTS)
    assert embedder._full is None
    batch = embedder.embed(TEXTS * 3)  # more than LIGHT_MAX_TEXTS
    assert embedder._full is not None and embedder._light is None
    assert len(TEXTS) <= minilm.LIGHT_MAX_TEXTS < len(TEXTS) * 3
    np.testing.assert_allclose(light, batch[: len(TEXTS)], atol=1e-5)
    np.testing.assert_allclose(batch[: len(TEXTS)], batch[len(TEXTS) : 2 * len(TEXTS)], atol=1e-6)
    assert batch.shape == (len(TEXTS) * 3, minilm.DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)


def test_many_small_calls_move_to_the_full_session(embedder):
    fresh = minilm.MiniLMEmbedder()
    for _ in range(minilm.LIGHT_MAX_CALLS):
        fresh.embed(TEXTS[:1])
        assert fresh._full is None
    vector = fresh.embed(TEXTS[:1])
    assert fresh._full is not None
    np.testing.assert_allclose(vector, embedder.embed(TEXTS[:1]), atol=1e-5)


def test_a_server_opens_the_full_session_before_its_first_query():
    light = minilm.MiniLMEmbedder().embed(TEXTS[:1])
    server = minilm.MiniLMEmbedder()
    server.expect_many_calls()
    assert server._full is not None and server._light is None
    np.testing.assert_allclose(server.embed(TEXTS[:1]), light, atol=1e-5)


def test_meaning_still_ranks(embedder):
    vectors = embedder.embed(TEXTS)
    assert vectors[0] @ vectors[3] > vectors[0] @ vectors[1]


def test_the_second_start_hashes_nothing(monkeypatch):
    hashed = []
    real = stamp.sha256_file
    monkeypatch.setattr(stamp, "sha256_file", lambda path: hashed.append(path) or real(path))
    minilm.MiniLMEmbedder()
    assert sorted(p.name for p in hashed) == ["model.onnx", "tokenizer.json"]
    minilm.MiniLMEmbedder()
    assert len(hashed) == 2
