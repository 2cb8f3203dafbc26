"""The API key never reaches a message, in any encoding a server or a library could quote it in.

A real loopback server echoes the Authorization header back in its error body, as sent, as a
Python repr, as JSON, percent- and HTML-encoded; every surface that shows an HTTP error (the
embedder, the chat steps, `wherein index`/`status`/`doctor`, MCP status) must show none of them.
A key that no HTTP header can carry is refused before anything is sent.
"""

from __future__ import annotations

import html
import json
from urllib.parse import quote, quote_plus

import pytest

from tests.embedding.fake_server import FakeEmbeddingServer
from tests.helpers import write_tree
from tests.plugin.conftest import run_session
from tests.ranking.chat_server import CHAT_MODEL, FakeChatServer
from wherein.cli import main
from wherein.embedding.ollama import OllamaEmbedder
from wherein.embedding.openai import OpenAIEmbedder
from wherein.endpoint.transport import request_deadline
from wherein.errors import EmbedderError, ModelStepError
from wherein.ranking.chat import ask_model, chat_model
from wherein.redaction import redact

# A backslash, both quotes, and characters that percent-, HTML- and JSON-encoding all change.
KEY = "sk-0123\\'\"%+/&<>9"


def forms(key: str) -> set[str]:
    """Every spelling of `key` worth checking for, worked out here independently of wherein."""
    raw = key.encode("utf-8", "surrogateescape")
    spelled = {
        key,
        repr(key)[1:-1],
        repr(raw)[2:-1],
        ascii(key)[1:-1],
        json.dumps(key)[1:-1],
        json.dumps(key, ensure_ascii=False)[1:-1],
        quote(key, safe=""),
        quote_plus(key),
        html.escape(key),
        raw.decode("latin-1"),
    }
    return {form for form in spelled if len(form) >= 4}


def assert_no_key(text: str, key: str = KEY) -> None:
    for form in forms(key):
        assert form not in text, (form, text)


@pytest.fixture
def echoing():
    with FakeEmbeddingServer() as server:
        server.echo_authorization = True
        yield server


def test_redact_removes_every_spelling_of_a_key():
    key = "sk-é\\'\"%+/&<>\r\n9"
    text = " | ".join(sorted(forms(key))) + f" | Bearer {key} | {repr(f'Bearer {key}'.encode())}"
    cleaned = redact(text, key)
    assert_no_key(cleaned, key)
    assert "(api key)" in cleaned


@pytest.mark.parametrize("embedder_class", [OllamaEmbedder, OpenAIEmbedder])
def test_an_embedding_server_echoing_the_key_gets_it_redacted(
    http_settings, echoing, embedder_class
):
    with pytest.raises(EmbedderError) as caught:
        embedder_class(http_settings(api_base=echoing.url, api_key=KEY))
    message = str(caught.value)
    assert echoing.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert "HTTP 401" in message and "embedding.api_key" in message
    assert "(api key)" in message
    assert_no_key(message)


def test_a_chat_server_echoing_the_key_gets_it_redacted(http_settings):
    with FakeChatServer() as chat:
        chat.echo_authorization = True
        settings = http_settings(api_base=chat.url, api_key=KEY)
        values = dict(settings.values, **{"rerank.model": CHAT_MODEL})
        target = chat_model(type(settings)(values=values, sources=settings.sources), "rerank")
        with request_deadline(5.0), pytest.raises(ModelStepError) as caught:
            ask_model(target, "system", "user", timeout_s=5.0)
    message = str(caught.value)
    assert "HTTP 401" in message and "(api key)" in message
    assert_no_key(message)


@pytest.mark.parametrize("key", ["sk-\r\nX-Injected: 1", "sk-clé-9", "sk-\x00-9"])
def test_a_key_no_header_can_carry_is_refused_before_anything_is_sent(http_settings, server, key):
    with pytest.raises(EmbedderError) as caught:
        OllamaEmbedder(http_settings(api_base=server.url, api_key=key))
    message = str(caught.value)
    assert "embedding.api_key" in message
    assert_no_key(message, key)
    assert server.requests == []


def test_no_command_and_no_tool_result_shows_an_echoed_key(tmp_path, echoing, monkeypatch, capsys):
    repo = write_tree(tmp_path / "repo", {"app.py": "def handler():\n    return 1\n"}).resolve()
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", echoing.url)
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_KEY", KEY)
    shown = []
    for command in (["index"], ["status"], ["status", "--json"], ["doctor"]):
        main([*command, "--workspace", str(repo)])
        captured = capsys.readouterr()
        shown.append(captured.out + captured.err)

    async def steps(rc):
        return await rc.recall(action="status")

    status = run_session(repo, steps)
    shown.append(json.dumps(status, ensure_ascii=False))
    assert status["embedding"]["answered"] is False
    for text in shown:
        assert "(api key)" in text, text
        assert_no_key(text)
