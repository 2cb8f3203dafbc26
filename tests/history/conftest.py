"""Agent homes under tmp_path, and embedders that count what they are given."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import HashingEmbedder


@pytest.fixture
def homes(tmp_path, monkeypatch) -> dict[str, Path]:
    """Empty Claude Code and Codex homes that discovery reads: {"claude", "codex", "projects",
    "sessions"}."""
    claude = tmp_path / "claude-config"
    codex = tmp_path / "codex-home"
    (claude / "projects").mkdir(parents=True)
    (codex / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return {
        "claude": claude,
        "codex": codex,
        "projects": claude / "projects" / "-home-me-shop",
        "sessions": codex / "sessions" / "2026" / "11" / "02",
    }


class CountingEmbedder:
    """Wraps an embedder and records every text it is asked to embed."""

    def __init__(self, inner=None) -> None:
        self.inner = inner if inner is not None else HashingEmbedder()
        self.identity = self.inner.identity
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture
def counting() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture(scope="session")
def minilm():
    """The real default model, loaded once for the tests that pass it explicitly."""
    from wherein.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder()
