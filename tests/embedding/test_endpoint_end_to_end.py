"""Index, search and status through an HTTP endpoint, end to end, with the real CLI."""

from __future__ import annotations

import json
import socket

import pytest

from tests.embedding.fake_server import WEDGE, FakeEmbeddingServer, Reply
from tests.helpers import write_tree
from wherein.cli import main
from wherein.config import load_settings
from wherein.endpoint import guard
from wherein.index.refresh import open_workspace_store
from wherein.indexing import build_index
from wherein.search import run_search

REPO = {
    "app/routing.py": "class Router:\n    def add_route(self, path, handler):\n"
    "        self.routes[path] = handler\n",
    "app/retry.py": "def retry_with_backoff(call, attempts=3):\n"
    "    for attempt in range(attempts):\n        return call()\n",
    "app/cookies.py": "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "app/session.py": "class Session:\n    def close(self):\n        self.open = False\n",
    "README.md": "# Demo\n\nA tiny app used by the tests.\n",
}


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", REPO)


@pytest.fixture
def use_endpoint(monkeypatch):
    def point(url: str, provider: str = "ollama", **extra: str) -> None:
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", provider)
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", url)
        for name, value in extra.items():
            monkeypatch.setenv(f"WHEREIN_EMBEDDING_{name.upper()}", value)

    return point


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return sock.getsockname()[1]


def _vector_count(repo) -> int:
    store = open_workspace_store(repo)
    try:
        return store.counts()["vectors"]
    finally:
        store.close()


def test_switching_model_discards_vectors_and_re_embeds_with_a_message(repo, server, use_endpoint):
    use_endpoint(server.url, model="model-a")
    first = build_index(repo, load_settings(repo))
    chunks = first.chunks_embedded
    assert chunks >= 5
    assert _vector_count(repo) == chunks

    use_endpoint(server.url, model="model-b")
    server.requests.clear()
    second = build_index(repo, load_settings(repo))
    assert second.report.files_changed == 0
    assert second.chunks_embedded == chunks
    notice = " ".join(second.notices)
    assert "ollama:model-a:32" in notice and "ollama:model-b:48" in notice
    assert f"discarded {chunks} vectors" in notice
    embedded_by_b = sum(len(r.body["input"]) for r in server.requests[1:])
    assert embedded_by_b == chunks
    assert {r.body["model"] for r in server.requests} == {"model-b"}

    result = run_search("retry with backoff", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/retry.py"
    assert result.hits[0].similarity is not None


def test_a_search_after_the_model_changed_ranks_by_the_fast_tier_and_says_why(
    repo, server, use_endpoint, capsys
):
    """The index's vectors are model-a's until `wherein index` runs again: a search with
    model-b configured cannot compare its query with them, and ranks by the fast tier."""
    use_endpoint(server.url, model="model-a")
    build_index(repo, load_settings(repo))
    use_endpoint(server.url, model="model-b")
    result = run_search("retry with backoff", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/retry.py"
    tiers = result.to_json()["tiers"]
    assert tiers["fast"]["used"] and not tiers["full"]["used"]
    assert result.hits[0].similarity is not None  # the fast tier's
    (said,) = [w for w in result.warnings if "not by the configured model" in w]
    assert "ollama:model-a:32" in said and "ollama:model-b:48" in said
    assert main(["status", "--workspace", str(repo)]) == 0
    assert "note       the configured model is another" in capsys.readouterr().out
    use_endpoint(server.url, model="model-a")
    assert main(["status", "--workspace", str(repo)]) == 0
    assert "note " not in capsys.readouterr().out


def test_switching_provider_discards_vectors_too(repo, server, use_endpoint):
    use_endpoint(server.url, provider="ollama")
    build_index(repo, load_settings(repo))
    use_endpoint(server.url, provider="openai")
    summary = build_index(repo, load_settings(repo))
    assert any("openai:nomic-embed-text:64" in notice for notice in summary.notices)
    assert summary.chunks_embedded == _vector_count(repo)


def test_a_first_search_with_an_unreachable_endpoint_answers_from_the_fast_tiers(
    repo, use_endpoint
):
    use_endpoint(f"http://127.0.0.1:{_free_port()}")
    result = run_search("parse_cookie", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/cookies.py"
    assert result.hits[0].similarity is not None  # the fast tier's, in process
    tiers = result.to_json()["tiers"]
    assert not tiers["full"]["used"] and tiers["fast"]["used"]
    assert result.pending_chunks >= 5


def test_a_first_search_never_waits_on_the_endpoint_nor_sends_it_code(repo, server, use_endpoint):
    """The configured model's tier is filled by 'wherein index' or serve, never by a search."""
    use_endpoint(server.url, timeout_s="0.5")
    server.queue.append(WEDGE)
    result = run_search("parse_cookie", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/cookies.py"
    assert server.connections == 0
    assert result.to_json()["tiers"]["full"]["pending"] >= 5


def test_search_falls_back_when_the_endpoint_stalls_on_the_query_itself(repo, server, use_endpoint):
    use_endpoint(server.url, timeout_s="0.5")
    build_index(repo, load_settings(repo))
    server.queue.extend([Reply(200, {"embeddings": [[0.5] * 64]}), WEDGE])  # probe, then query
    result = run_search("parse_cookie", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/cookies.py"
    assert result.hits[0].similarity is None
    assert any("did not answer within 0.5 s" in w for w in result.warnings)


def test_search_falls_back_when_the_endpoint_answers_with_a_redirect(
    repo, server, use_endpoint, canary, capsys
):
    """A redirect (a proxy's login page) is a model that does not answer: never followed,
    and the search answers without it, as for a wedged one; the CLI exits 0."""
    use_endpoint(server.url)
    build_index(repo, load_settings(repo))
    moved = Reply(302, b"", {"Location": f"http://127.0.0.1:{canary.port}/login"})
    server.queue.extend([moved] * 4)  # the probe and the query, for each of the two searches
    result = run_search("parse_cookie", workspace=repo, settings=load_settings(repo))
    assert result.hits[0].path == "app/cookies.py"
    assert any("redirect" in w for w in result.warnings)
    assert main(["search", "parse_cookie", "--workspace", str(repo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["path"] == "app/cookies.py"
    assert canary.connections == 0


def test_index_with_an_unreachable_endpoint_leaves_chunks_pending_and_counts_them(
    repo, use_endpoint, capsys
):
    use_endpoint(f"http://127.0.0.1:{_free_port()}")
    assert main(["index", "--workspace", str(repo)]) == 0
    out, err = capsys.readouterr()
    pending = json.loads(_status_json(repo, capsys))["pending"]["chunks"]
    assert pending >= 5
    assert f"{pending} chunks pending: the embedding endpoint did not answer" in out
    assert "cannot be reached" in err


def test_index_with_a_malformed_answer_fails_and_stores_no_vector(repo, server, use_endpoint):
    use_endpoint(server.url)
    server.queue.extend(
        [
            Reply(200, {"embeddings": [[0.5] * 64]}),
            Reply(200, {"embeddings": [[float("nan")] * 64] * 5}),
        ]
    )
    assert main(["index", "--workspace", str(repo)]) == 1
    assert _vector_count(repo) == 0


def test_why_index_could_not_embed_is_kept_for_status_and_searches_until_it_can(
    repo, server, use_endpoint, capsys, monkeypatch
):
    use_endpoint(server.url)
    server.queue.extend(
        [
            Reply(200, {"embeddings": [[0.5] * 64]}),
            Reply(200, {"embeddings": [[float("nan")] * 64] * 5}),
        ]
    )
    assert main(["index", "--workspace", str(repo)]) == 1
    why = capsys.readouterr().err.strip().removeprefix("wherein: ")
    assert main(["status", "--json", "--workspace", str(repo)]) == 0
    assert json.loads(capsys.readouterr().out)["embed_failure"] == why
    assert main(["search", "router", "--json", "--workspace", str(repo)]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(why in warning and "could not embed" in warning for warning in warnings)

    monkeypatch.setenv("WHEREIN_EMBEDDING_MODEL", "model-b")  # another model: not its failure
    assert main(["status", "--json", "--workspace", str(repo)]) == 0
    assert json.loads(capsys.readouterr().out)["embed_failure"] is None
    monkeypatch.delenv("WHEREIN_EMBEDDING_MODEL")
    assert main(["status", "--json", "--workspace", str(repo)]) == 0
    assert json.loads(capsys.readouterr().out)["embed_failure"] == why

    assert main(["index", "--workspace", str(repo)]) == 0  # the endpoint answers well now
    capsys.readouterr()
    assert main(["status", "--json", "--workspace", str(repo)]) == 0
    assert json.loads(capsys.readouterr().out)["embed_failure"] is None
    assert main(["search", "router", "--json", "--workspace", str(repo)]) == 0
    assert not any("could not embed" in w for w in json.loads(capsys.readouterr().out)["warnings"])


@pytest.mark.parametrize("command", [["index"], ["search", "router"], ["status"]])
def test_a_refused_endpoint_is_a_configuration_error_for_every_command(
    repo, use_endpoint, capsys, canary, command, monkeypatch
):
    # Were the name let through, it would "resolve" to the canary: no real lookup, ever.
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: [canary.host])
    use_endpoint(f"http://localhost.evil.example:{canary.port}")
    assert main([*command, "--workspace", str(repo)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "'localhost.evil.example'" in err
    assert "refused" in err
    assert canary.connections == 0


def _status_json(repo, capsys) -> str:
    assert main(["status", "--json", "--workspace", str(repo)]) == 0
    return capsys.readouterr().out


def test_status_reports_an_answering_endpoint(repo, server, use_endpoint, capsys):
    use_endpoint(server.url, api_key="sk-never-print-me")
    status = json.loads(_status_json(repo, capsys))
    assert status["embedder"] == {
        "provider": "ollama",
        "model": "nomic-embed-text",
        "dim": 64,
        "url": server.url,
        "answered": True,
    }
    assert len(server.requests) == 1
    assert main(["status", "--workspace", str(repo)]) == 0
    text = capsys.readouterr().out
    assert f"{server.url} (ollama, nomic-embed-text, 64 dims): answered" in text
    assert "sk-never-print-me" not in text + json.dumps(status)


def test_status_probes_a_dead_endpoint_once_and_says_configured(repo, use_endpoint, capsys):
    url = f"http://127.0.0.1:{_free_port()}"
    use_endpoint(url, provider="openai", model="bge-small")
    status = json.loads(_status_json(repo, capsys))
    assert status["embedder"] == {
        "provider": "openai",
        "model": "bge-small",
        "dim": None,
        "url": url,
        "answered": False,
    }
    assert "cannot be reached" in status["endpoint_error"]


def test_status_probe_does_not_retry_a_busy_server(repo, server, use_endpoint, capsys):
    use_endpoint(server.url)
    server.queue.append(Reply(503, {"error": "busy"}))
    status = json.loads(_status_json(repo, capsys))
    assert status["embedder"]["answered"] is False
    assert len(server.requests) == 1


def test_status_of_the_in_process_model_has_no_url(repo, capsys):
    status = json.loads(_status_json(repo, capsys))
    assert status["embedder"]["url"] is None
    assert status["embedder"]["answered"] is None
    assert status["embedder"]["provider"] == "minilm"


def test_the_http_path_ranks_like_the_in_process_model_it_serves(repo, monkeypatch):
    """The real default model behind the fake server: the HTTP path finds what MiniLM finds."""
    from wherein.embedding.minilm import DIMENSION, MiniLMEmbedder

    with FakeEmbeddingServer(models={"all-minilm": DIMENSION}, embed_fn=MiniLMEmbedder().embed) as (
        served
    ):
        monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
        monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", served.url)
        monkeypatch.setenv("WHEREIN_EMBEDDING_MODEL", "all-minilm")
        settings = load_settings(repo)
        build_index(repo, settings)
        result = run_search("call again after a failure", workspace=repo, settings=settings)
    assert result.hits[0].path == "app/retry.py"
    assert result.hits[0].similarity is not None
    assert result.warnings == []
