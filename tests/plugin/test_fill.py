"""A session's background fill: a failure is said, in searches and status, and not retried
on every search."""

from __future__ import annotations

import anyio

from tests.embedding.fake_server import FakeEmbeddingServer, Reply
from tests.helpers import write_tree
from tests.plugin.conftest import run_session
from wherein import backoff
from wherein.config import load_settings
from wherein.plugin import session as session_module
from wherein.plugin.session import FILL_RETRY_S, RecallSession

REPO = {"app/retry.py": "def retry_with_backoff(call):\n    return call()\n"}


def test_a_failed_fill_is_kept_said_and_not_asked_again_until_its_wait_is_over(
    tmp_path, monkeypatch
):
    repo = write_tree(tmp_path / "repo", REPO)
    with FakeEmbeddingServer() as server:
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", server.url)
        settings = load_settings(repo)
        server.queue.extend([Reply(500, {"error": "model not found"})] * 4)
        session = RecallSession(repo)
        try:
            assert session.start_backfill(settings)
            session._backfill.join(30)
            assert session.backfill_error is not None
            assert "could not start" in session.backfill_error
            assert f"Tried again in {FILL_RETRY_S:g} s" in session.backfill_error
            asked = len(server.requests)
            assert asked >= 1
            assert not session.start_backfill(settings)  # within the wait: the endpoint rests
            assert len(server.requests) == asked

            now = backoff.time.monotonic()
            monkeypatch.setattr(backoff.time, "monotonic", lambda: now + FILL_RETRY_S + 1)
            assert session.start_backfill(settings)  # the wait is over: asked again
            session._backfill.join(30)
            assert len(server.requests) > asked
            assert f"Tried again in {2 * FILL_RETRY_S:g} s" in session.backfill_error
            asked = len(server.requests)
            monkeypatch.setenv("WHEREIN_EMBEDDING_MODEL", "another-model")
            assert session.start_backfill(load_settings(repo))  # another model: no wait
            session._backfill.join(30)
            assert len(server.requests) > asked
            session.fill_not_needed()  # nothing left to fill: the failure is over
            assert session.backfill_error is None
        finally:
            anyio.run(session.aclose)


def test_a_model_that_could_not_start_rests_before_searches_try_it_again(tmp_path, monkeypatch):
    repo = write_tree(tmp_path / "repo", REPO)
    with FakeEmbeddingServer() as server:
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", server.url)
        settings = load_settings(repo)
        server.queue.append(Reply(500, {"error": "model not found"}))
        session = RecallSession(repo)
        try:
            assert session.embedder_resting(settings) is None
            assert session.embedder(settings) is None  # asked: it answered 500
            asked = len(server.requests)
            resting = session.embedder_resting(settings)
            assert resting is not None and "Ranked without its vectors" in resting
            assert session.embedder(settings) is None  # within the rest: not asked
            assert len(server.requests) == asked
            now = backoff.time.monotonic()
            later = now + session_module.EMBEDDER_RETRY_S + 1
            monkeypatch.setattr(backoff.time, "monotonic", lambda: later)
            assert session.embedder_resting(settings) is None
            assert session.embedder(settings) is not None  # asked again: it answers now
            assert len(server.requests) > asked
        finally:
            anyio.run(session.aclose)


def test_a_stopped_fill_is_in_the_results_warnings_as_in_their_text(tmp_path, monkeypatch):
    # The contract: `warnings` holds the sentences the text shows as `Note:` lines; a fill
    # that stopped (disk full, no model) was in the text only.
    repo = write_tree(tmp_path / "repo", REPO)
    with FakeEmbeddingServer() as server:
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", server.url)
        server.queue.extend([Reply(500, {"error": "model not found"})] * 50)

        async def steps(client):
            for _ in range(300):
                result = await client.recall(query="retry with backoff")
                said = [w for w in result.get("warnings", []) if w.startswith("Filling the")]
                if said:
                    return result, said
                await anyio.sleep(0.1)
            raise AssertionError(f"no fill failure said: {result['text']}")

        result, (said,) = run_session(repo, steps)
    assert f"Note: {said}" in result["text"]
