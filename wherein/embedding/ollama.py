"""Ollama's native embedding API: `POST /api/embed` with `keep_alive`."""

from __future__ import annotations

import re
from typing import Any

from wherein.embedding.http import HttpEmbedder

__all__ = ["OllamaEmbedder"]

# Ollama reads a bare number as seconds and anything else as a Go duration ("5m", "-1s");
# a number written as a string ("-1", "300") would fail Go's duration parser, so it goes as one.
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


class OllamaEmbedder(HttpEmbedder):
    """Embeddings from an Ollama server (`ollama pull nomic-embed-text`)."""

    provider = "ollama"
    start_hint = "start Ollama ('ollama serve')"

    @property
    def path(self) -> str:
        return "/api/embed"

    def _payload(self, texts: list[str]) -> dict[str, Any]:
        keep_alive: str | float = self.keep_alive
        if _NUMBER.fullmatch(self.keep_alive.strip()):
            keep_alive = float(self.keep_alive)
        return {"model": self.model, "input": texts, "keep_alive": keep_alive}

    def _vectors(self, body: Any, count: int) -> list[Any]:
        if not isinstance(body, dict) or not isinstance(body.get("embeddings"), list):
            raise self._malformed("JSON without an 'embeddings' list")
        return body["embeddings"]

    def _missing_model(self, server_text: str) -> str | None:
        # Ollama says: model "nomic-embed-text" not found, try pulling it first; a wrong path
        # gets Go's "404 page not found", which is not about the model.
        lowered = server_text.lower()
        if "model" not in lowered or "not found" not in lowered:
            return None
        return (
            f"model '{self.model}' is not pulled on {self.endpoint.base_url}: "
            f"run 'ollama pull {self.model}'."
        )
