"""The OpenAI-compatible embedding API: `POST /v1/embeddings`.

Served by llama.cpp's server, LM Studio, vLLM, text-embeddings-inference and Ollama itself.
"""

from __future__ import annotations

from typing import Any

from wherein.embedding.http import HttpEmbedder

__all__ = ["OpenAIEmbedder"]

# People write the base either as the server root or with the /v1 the API lives under.
API_PREFIX = "/v1"


class OpenAIEmbedder(HttpEmbedder):
    """Embeddings from any server speaking OpenAI's `/v1/embeddings`."""

    provider = "openai"
    start_hint = "start the embedding server"

    @property
    def path(self) -> str:
        if self.endpoint.path.endswith(API_PREFIX):
            return "/embeddings"
        return API_PREFIX + "/embeddings"

    def _payload(self, texts: list[str]) -> dict[str, Any]:
        return {"model": self.model, "input": texts, "encoding_format": "float"}

    def _vectors(self, body: Any, count: int) -> list[Any]:
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise self._malformed("JSON without a 'data' list")
        by_index: dict[int, Any] = {}
        for item in data:
            index = item.get("index") if isinstance(item, dict) else None
            if type(index) is not int or index in by_index:
                raise self._malformed("an item without a distinct integer 'index'")
            by_index[index] = item.get("embedding")
        if sorted(by_index) != list(range(len(by_index))):
            raise self._malformed(f"indexes {sorted(by_index)} instead of 0..{count - 1}")
        # The API does not promise order; the index field does.
        return [by_index[i] for i in range(len(by_index))]

    def _missing_model(self, server_text: str) -> str | None:
        lowered = server_text.lower()
        if "model" not in lowered or not (
            "not found" in lowered or "does not exist" in lowered or "model_not_found" in lowered
        ):
            return None
        return (
            f"model '{self.model}' is not available on {self.endpoint.base_url} "
            f"({server_text}): load or pull it there, or set embedding.model."
        )
