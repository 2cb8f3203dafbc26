"""Fixtures for the model steps: a chat server, a canary, a small repository, settings for them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.embedding.fake_server import Canary
from tests.helpers import HashingEmbedder, write_tree
from tests.ranking.chat_server import CHAT_MODEL, FakeChatServer
from wherein.config import Settings, load_settings
from wherein.search import SearchResult, run_search

REPO = {
    "app/retry.py": (
        "def retry_with_backoff(call, attempts=3):\n"
        "    '''Call again after a failure, waiting longer each time.'''\n"
        "    for attempt in range(attempts):\n"
        "        try:\n"
        "            return call()\n"
        "        except ConnectionError:\n"
        "            sleep(2 ** attempt)\n"
    ),
    "app/routing.py": (
        "class Router:\n"
        "    def add_route(self, path, handler):\n"
        "        '''Register a handler for a URL path.'''\n"
        "        self.routes[path] = handler\n"
    ),
    "app/cookies.py": (
        "def parse_cookie(header):\n"
        "    '''Split a Cookie header into a dict of names and values.'''\n"
        "    return dict(p.split('=') for p in header.split(';'))\n"
    ),
    "app/session.py": (
        "class Session:\n"
        "    '''Keeps cookies and connection settings across requests.'''\n"
        "    def send(self, request):\n"
        "        return self.adapter.send(request, retries=self.retries)\n"
    ),
    "app/timeouts.py": (
        "def deadline_after(seconds):\n"
        "    '''The monotonic time by which a call must finish.'''\n"
        "    return monotonic() + seconds\n"
    ),
}


@pytest.fixture
def chat() -> Iterator[FakeChatServer]:
    with FakeChatServer() as running:
        yield running


@pytest.fixture
def canary() -> Iterator[Canary]:
    with Canary() as listening:
        yield listening


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", REPO)


@pytest.fixture
def step_settings() -> Callable[..., Settings]:
    """Settings with dotted overrides: step_settings(**{"rerank.enabled": True})."""

    def make(**overrides: Any) -> Settings:
        base = load_settings(None)
        values = dict(base.values)
        values.update(overrides)
        return Settings(values=values, sources=base.sources)

    return make


def model_settings(url: str, *steps: str, timeout_s: float = 5.0, **more: Any) -> dict[str, Any]:
    """Overrides that turn `steps` on against the chat model at `url`."""
    values: dict[str, Any] = {}
    for step in steps:
        values.update(
            {
                f"{step}.enabled": True,
                f"{step}.model": CHAT_MODEL,
                f"{step}.api_base": url,
                f"{step}.timeout_s": timeout_s,
            }
        )
    values.update(more)
    return values


@pytest.fixture
def search(repo: Path) -> Callable[..., SearchResult]:
    """Search the small repository with the deterministic embedder (fast, no model load)."""
    embedder = HashingEmbedder()

    def run(query: str, settings: Settings, **kwargs: Any) -> SearchResult:
        return run_search(
            query, workspace=repo, settings=settings, fast_embedder=embedder, **kwargs
        )

    return run


def places(result: SearchResult) -> list[tuple[str, int]]:
    """The result's hits as (path, start line), in order."""
    return [(hit.path, hit.start_line) for hit in result.hits]
