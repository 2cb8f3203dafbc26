"""The Ollama and OpenAI-compatible embedders against a real loopback server."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.embedding.fake_server import TRICKLE, WEDGE, Reply, hash_vectors
from wherein.embedding.ollama import OllamaEmbedder
from wherein.embedding.openai import OpenAIEmbedder
from wherein.errors import EmbedderError, EndpointUnreachable

TEXTS = [f"def handler_{i}(request): return route_{i}" for i in range(40)]
# A test that hangs is a failure, reported as one: far above any deadline under test.
HANG_S = 20.0


def _expected(texts, model="nomic-embed-text", dim=64):
    rows = hash_vectors(texts, model, dim)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("embedder_class", [OllamaEmbedder, OpenAIEmbedder])
def test_batches_keep_order_and_respect_batch_size(http_settings, server, embedder_class):
    embedder = embedder_class(http_settings(api_base=server.url, batch_size=16, concurrency=2))
    vectors = embedder.embed(TEXTS)
    np.testing.assert_allclose(vectors, _expected(TEXTS), atol=1e-6)
    sizes = sorted(len(r.body["input"]) for r in server.requests[1:])
    assert sizes == [8, 16, 16]
    assert server.connections <= 2
    assert embedder.identity.key() == f"{embedder_class.provider}:nomic-embed-text:64"


def test_ollama_sends_model_and_keep_alive_to_api_embed(http_settings, server):
    OllamaEmbedder(http_settings(api_base=server.url, keep_alive="10m")).embed(["x"])
    OllamaEmbedder(http_settings(api_base=server.url, keep_alive="-1")).embed(["x"])
    bodies = [r.body for r in server.requests]
    assert {r.path for r in server.requests} == {"/api/embed"}
    assert bodies[0]["keep_alive"] == "10m"
    assert bodies[-1]["keep_alive"] == -1
    assert bodies[0]["model"] == "nomic-embed-text"


@pytest.mark.parametrize("suffix", ["", "/v1", "/v1/"])
def test_openai_finds_v1_embeddings_with_or_without_v1_in_the_base(http_settings, server, suffix):
    OpenAIEmbedder(http_settings(api_base=server.url + suffix)).embed(["x"])
    assert {r.path for r in server.requests} == {"/v1/embeddings"}


def test_openai_orders_rows_by_index_not_by_position(http_settings, server):
    server.reverse_openai_order = True
    vectors = OpenAIEmbedder(http_settings(api_base=server.url)).embed(TEXTS[:5])
    np.testing.assert_allclose(vectors, _expected(TEXTS[:5]), atol=1e-6)


def test_no_authorization_header_reaches_the_server_without_a_key(http_settings, server):
    for embedder_class in (OllamaEmbedder, OpenAIEmbedder):
        embedder_class(http_settings(api_base=server.url)).embed(TEXTS[:3])
    assert server.requests
    assert all("authorization" not in r.headers for r in server.requests)


def test_a_configured_key_is_sent_as_bearer_and_never_shown_in_errors(http_settings, server):
    key = "sk-test-0123456789"
    embedder = OpenAIEmbedder(http_settings(api_base=server.url, api_key=key))
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    server.queue.append(Reply(401, {"error": {"message": f"bad key {key} for this server"}}))
    with pytest.raises(EmbedderError) as caught:
        embedder.embed(["x"])
    assert key not in str(caught.value)
    assert "embedding.api_key" in str(caught.value)


@pytest.mark.parametrize("behaviour", [WEDGE, TRICKLE])
def test_a_wedged_endpoint_gives_up_on_its_own_deadline(http_settings, server, behaviour):
    """WEDGE never answers; TRICKLE sends a byte every 50 ms, so no single read times out."""
    embedder = OllamaEmbedder(http_settings(api_base=server.url, timeout_s=0.5))
    server.queue.append(behaviour)
    outcome: list[BaseException | None] = []

    def call() -> None:
        try:
            embedder.embed(["x"])
            outcome.append(None)
        except BaseException as err:  # noqa: BLE001 - handed to the test thread
            outcome.append(err)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(HANG_S)
    assert not worker.is_alive(), "the request outlived its deadline"
    assert isinstance(outcome[0], EndpointUnreachable)
    assert "did not answer within 0.5 s" in str(outcome[0])
    assert len(server.requests) == 2, "a timeout is not retried"


def test_an_endpoint_that_did_not_answer_rests_before_it_is_asked_again(
    http_settings, server, monkeypatch
):
    from wherein.embedding import http

    embedder = OllamaEmbedder(http_settings(api_base=server.url, timeout_s=0.5))
    server.queue.append(WEDGE)
    with pytest.raises(EndpointUnreachable):
        embedder.embed(["x"])
    asked = len(server.requests)
    with pytest.raises(EndpointUnreachable, match=r"did not answer.* Not asked again for 1[45] s"):
        embedder.embed(["y"])  # at once, and the server is not asked
    assert len(server.requests) == asked
    now = time.monotonic()
    monkeypatch.setattr(http.time, "monotonic", lambda: now + http.REST_S + 1)
    assert embedder.embed(["y"]).shape[0] == 1  # rested: asked again, and it answers
    assert len(server.requests) == asked + 1


def test_an_unreachable_endpoint_is_retried_once_then_reported(http_settings, server):
    url = server.url
    server.stop()
    with pytest.raises(EndpointUnreachable) as caught:
        OllamaEmbedder(http_settings(api_base=url))
    assert url in str(caught.value)
    assert "nomic-embed-text" in str(caught.value)


def test_a_busy_server_is_asked_again_once(http_settings, server):
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    server.queue.append(Reply(503, {"error": "server busy, please try again"}))
    assert embedder.embed(["x"]).shape == (1, 64)
    assert len(server.requests) == 3
    server.queue.extend([Reply(503, {"error": "busy"}), Reply(503, {"error": "busy"})])
    with pytest.raises(EndpointUnreachable, match="HTTP 503"):
        embedder.embed(["x"])


def test_a_client_error_is_not_retried(http_settings, server):
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    server.queue.append(Reply(400, {"error": "input too long"}))
    with pytest.raises(EmbedderError, match="input too long"):
        embedder.embed(["x"])
    assert len(server.requests) == 2


def test_ollama_model_not_found_says_to_pull_it(http_settings, server):
    with pytest.raises(EmbedderError) as caught:
        OllamaEmbedder(http_settings(api_base=server.url, model="mxbai-embed-large"))
    assert str(caught.value) == (
        f"model 'mxbai-embed-large' is not pulled on {server.url}: "
        "run 'ollama pull mxbai-embed-large'."
    )


def test_openai_model_not_found_names_endpoint_and_model(http_settings, server):
    with pytest.raises(EmbedderError) as caught:
        OpenAIEmbedder(http_settings(api_base=server.url + "/v1", model="text-embedding-3-small"))
    message = str(caught.value)
    assert "model 'text-embedding-3-small' is not available on" in message
    assert server.url in message


def test_a_wrong_path_is_not_mistaken_for_a_missing_model(http_settings, server):
    with pytest.raises(EmbedderError, match="has no /api/embed"):
        OllamaEmbedder(http_settings(api_base=server.url + "/nothing-here"))


def _raw_rows(first: str) -> Reply:
    """Two 64-wide rows as raw JSON, the first starting with `first` (NaN, Infinity, 1e999)."""
    tail = ", ".join(["0.1"] * 63)
    return Reply(200, f'{{"embeddings": [[{first}, {tail}], [0.2, {tail}]]}}'.encode())


OLLAMA_MALFORMED = [
    ("not-json", Reply(200, b"<html>hello</html>"), "not JSON"),
    ("no-embeddings", Reply(200, {"embedding": [0.1, 0.2]}), "'embeddings'"),
    ("too-few", Reply(200, {"embeddings": [[0.1] * 64]}), "1 vectors for 2 texts"),
    ("too-many", Reply(200, {"embeddings": [[0.1] * 64] * 3}), "3 vectors for 2 texts"),
    ("wrong-width", Reply(200, {"embeddings": [[0.1] * 64, [0.1] * 63]}), "width 63"),
    ("nan", _raw_rows("NaN"), "NaN"),
    ("inf", _raw_rows("-Infinity"), "infinite"),
    ("overflow", _raw_rows("1e999"), "infinite"),
    ("empty-vector", Reply(200, {"embeddings": [[], []]}), "empty"),
    ("zero-vector", Reply(200, {"embeddings": [[0.0] * 64, [0.1] * 64]}), "all-zero"),
    ("strings", Reply(200, {"embeddings": [["0.1"] * 64, [0.1] * 64]}), "not numbers"),
    ("booleans", Reply(200, {"embeddings": [[True] * 64, [0.1] * 64]}), "not numbers"),
    ("null", Reply(200, {"embeddings": None}), "'embeddings'"),
]


@pytest.mark.parametrize(
    ("reply", "why"), [case[1:] for case in OLLAMA_MALFORMED], ids=[c[0] for c in OLLAMA_MALFORMED]
)
def test_a_malformed_answer_is_an_error_never_a_vector(http_settings, server, reply, why):
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    server.queue.append(reply)
    with pytest.raises(EmbedderError) as caught:
        embedder.embed(["first text", "second text"])
    assert why in str(caught.value)
    assert "nothing was stored" in str(caught.value) or why == "'embeddings'"


def test_a_malformed_probe_answer_stops_the_embedder_from_starting(http_settings, server):
    server.queue.append(Reply(200, {"embeddings": [[]]}))
    with pytest.raises(EmbedderError, match="empty"):
        OllamaEmbedder(http_settings(api_base=server.url))


OPENAI_MALFORMED = [
    ("no-data", {"object": "list"}, "'data'"),
    ("repeated-index", {"data": [{"index": 0, "embedding": [0.1]}] * 2}, "distinct"),
    (
        "gap",
        {"data": [{"index": 0, "embedding": [0.1]}, {"index": 2, "embedding": [0.1]}]},
        "indexes [0, 2]",
    ),
    ("string-index", {"data": [{"index": "0", "embedding": [0.1]}]}, "integer"),
]


@pytest.mark.parametrize(
    ("body", "why"), [case[1:] for case in OPENAI_MALFORMED], ids=[c[0] for c in OPENAI_MALFORMED]
)
def test_a_malformed_openai_answer_is_an_error(http_settings, server, body, why):
    embedder = OpenAIEmbedder(http_settings(api_base=server.url))
    server.queue.append(Reply(200, body))
    with pytest.raises(EmbedderError, match=why.replace("[", r"\[").replace("]", r"\]")):
        embedder.embed(["first text", "second text"])


def test_an_oversized_answer_is_refused(http_settings, server, monkeypatch):
    from wherein.embedding import http

    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    monkeypatch.setattr(http, "MAX_RESPONSE_BYTES", 1000)
    with pytest.raises(EmbedderError, match="larger than"):
        embedder.embed(TEXTS[:16])


@pytest.mark.parametrize("scale", ["1e300", "-1e300", "1e-300"], ids=["huge", "negative", "tiny"])
def test_values_past_float32_range_give_unit_vectors(http_settings, server, scale):
    """A finite answer float32 cannot hold (1e300 is infinite in it, 1e-300 zero) is still a
    direction: each row is stored as a unit vector, never NaN or zero."""
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    row = ", ".join([scale] * 32 + [f"-{scale}".replace("--", "")] * 32)
    server.queue.append(Reply(200, f'{{"embeddings": [[{row}], [{row}]]}}'.encode()))
    vectors = embedder.embed(["first text", "second text"])
    assert np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
