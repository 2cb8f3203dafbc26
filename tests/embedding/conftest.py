"""Fixtures for the HTTP embedders: a fake server, a canary, and settings pointing at them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.embedding.fake_server import Canary, FakeEmbeddingServer
from wherein.config import Settings, load_settings


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as running:
        yield running


@pytest.fixture
def canary() -> Iterator[Canary]:
    with Canary() as listening:
        yield listening


@pytest.fixture
def http_settings() -> Callable[..., Settings]:
    """Settings with `embedding.*` overrides: http_settings(api_base=url, provider="openai")."""

    def make(**overrides: Any) -> Settings:
        base = load_settings(None)
        values = dict(base.values)
        values["embedding.provider"] = "ollama"
        for name, value in overrides.items():
            values[f"embedding.{name}"] = value
        return Settings(values=values, sources=base.sources)

    return make
