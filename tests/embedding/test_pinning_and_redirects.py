"""Layers 2 and 3 of the endpoint guard, with real sockets: a canary counts what must not happen."""

from __future__ import annotations

import socket

import httpx
import pytest

from tests.embedding.fake_server import Canary, FakeEmbeddingServer, Reply
from wherein.embedding.ollama import OllamaEmbedder
from wherein.endpoint.client import build_client
from wherein.endpoint.guard import open_endpoint
from wherein.errors import EmbedderError


@pytest.mark.parametrize(
    "location",
    ["http://127.0.0.1:{port}/api/embed", "http://localhost:{port}/api/embed"],
    ids=["off-device-literal", "a-name"],
)
def test_a_redirect_is_not_followed_and_names_its_host(http_settings, server, canary, location):
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    target = location.format(port=canary.port)
    server.queue.append(Reply(307, b"", {"Location": target}))
    with pytest.raises(EmbedderError) as caught:
        embedder.embed(["def handler(): pass"])
    assert f"'{httpx.URL(target).host}'" in str(caught.value)
    assert "redirect" in str(caught.value)
    assert canary.connections == 0


def test_a_redirect_to_another_machine_sends_nothing_there(http_settings, server, canary):
    server.queue.append(Reply(302, b"", {"Location": "http://evil.example/collect"}))
    with pytest.raises(EmbedderError, match="'evil.example'"):
        OllamaEmbedder(http_settings(api_base=server.url))
    assert canary.connections == 0
    assert len(server.requests) == 1


def test_the_client_never_resolves_the_name_again(monkeypatch, http_settings):
    """A DNS answer that changes after the guard's check cannot redirect the text.

    The server listens on 127.0.0.1:P and a canary on 127.0.0.2:P. After the guard has
    resolved 'localhost', every later lookup of it answers 127.0.0.2: a client that looked
    the name up again would connect to the canary.
    """
    with FakeEmbeddingServer() as server:
        try:
            decoy = Canary("127.0.0.2", server.port)
        except OSError:
            pytest.skip("127.0.0.2 is not on the loopback interface here")
        with decoy:
            server.close_after_reply = True  # every request needs a new connection
            embedder = OllamaEmbedder(http_settings(api_base=f"http://localhost:{server.port}"))
            real = socket.getaddrinfo

            def rebound(host, *args, **kwargs):
                if host == "localhost":
                    return real("127.0.0.2", *args, **kwargs)
                return real(host, *args, **kwargs)

            monkeypatch.setattr(socket, "getaddrinfo", rebound)
            vectors = embedder.embed(["one", "two", "three"])
    assert vectors.shape == (3, 64)
    assert server.connections == 2  # the probe and the batch, each on a new connection
    assert decoy.connections == 0
    assert all(r.headers["host"] == f"localhost:{server.port}" for r in server.requests)


def test_the_pinned_transport_refuses_any_other_host_or_port(server, canary):
    endpoint = open_endpoint(server.url, allow_remote=False)
    client = build_client(endpoint, api_key=None, max_connections=1)
    with client:
        for url in (f"http://localhost:{server.port}/", f"{canary.url}/", "http://evil.example/"):
            with pytest.raises(httpx.ConnectError, match="endpoint guard"):
                client.post(url, json={})
    assert canary.connections == 0
    assert server.connections == 0
