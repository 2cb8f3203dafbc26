"""Layer 4 of the endpoint guard: proxies and credentials from the environment are ignored.

Its own module, and a subprocess for the CLI, so the variables set here reach nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.embedding.fake_server import Canary, FakeEmbeddingServer
from tests.helpers import write_tree
from wherein.embedding.ollama import OllamaEmbedder

PROXY_NAMES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", PROXY_NAMES)
def test_a_proxy_variable_pointing_at_the_canary_is_not_used(
    monkeypatch, http_settings, server, canary, name
):
    monkeypatch.setenv(name, canary.url)
    embedder = OllamaEmbedder(http_settings(api_base=server.url))
    assert embedder.embed(["class Router: pass"]).shape == (1, 64)
    assert canary.connections == 0
    assert len(server.requests) == 2


def test_netrc_credentials_are_not_sent(monkeypatch, tmp_path, http_settings, server):
    netrc = tmp_path / "home" / ".netrc"
    netrc.parent.mkdir(parents=True, exist_ok=True)
    netrc.write_text("machine 127.0.0.1 login alice password hunter2\n", encoding="utf-8")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    OllamaEmbedder(http_settings(api_base=server.url)).embed(["x"])
    assert all("authorization" not in r.headers for r in server.requests)


def test_the_cli_ignores_every_proxy_variable_in_a_real_process(tmp_path):
    repo = write_tree(tmp_path / "repo", {"app/retry.py": "def retry(call):\n    return call()\n"})
    with FakeEmbeddingServer() as server, Canary() as canary:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WHEREIN_EMBEDDING")}
        env.update(dict.fromkeys(PROXY_NAMES, canary.url))
        env.update(
            WHEREIN_EMBEDDING_PROVIDER="ollama",
            WHEREIN_EMBEDDING_API_BASE=server.url,
            PYTHONPATH=str(REPO_ROOT),
        )
        env.pop("NO_PROXY", None)
        env.pop("no_proxy", None)
        done = subprocess.run(
            [sys.executable, "-m", "wherein.cli", "index", "--workspace", str(repo)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert "1 chunks embedded" in done.stdout
    assert server.connections >= 1
    assert canary.connections == 0
