"""The embedder part of `status`: which provider and model, and whether its endpoint answers.

An HTTP endpoint is asked once, with one short text, no retry and a 10 s ceiling
(`PROBE_CEILING_S`): status must say "answered" or "configured" without hanging on a wedged
server. An in-process model is not loaded: its identity is read from the index.
"""

from __future__ import annotations

from typing import Any

from wherein.config import Settings
from wherein.embedding.guard import check_url
from wherein.errors import EmbedderError
from wherein.redaction import redact

__all__ = ["HTTP_PROVIDERS", "describe_embedder"]

# The `provider` of OllamaEmbedder and OpenAIEmbedder, known without importing them.
HTTP_PROVIDERS = ("ollama", "openai")


def describe_embedder(
    settings: Settings, indexed: str | None = None
) -> tuple[dict[str, Any], str | None]:
    """The `embedder` object of `status --json`, and why the endpoint gave no vector (or None).

    Args:
        indexed: the identity key stored in the index ("provider:model:dim"), if any.

    Returns:
        `{"provider", "model", "dim", "url", "answered"}`; `url` and `answered` are None for an
        in-process provider.

    Raises:
        ConfigError: the endpoint guard refuses the configured URL.
    """
    provider = settings["embedding.provider"]
    if provider not in HTTP_PROVIDERS:
        model, dim = settings["embedding.model"], None
        if indexed:
            stored_provider, rest = indexed.split(":", 1)
            stored_model, _, stored_dim = rest.rpartition(":")
            if stored_provider == provider:
                model, dim = stored_model, int(stored_dim)
        described = {"provider": provider, "model": model, "dim": dim, "url": None}
        return {**described, "answered": None}, None

    # Imported only now: httpx, and the rich its CLI module imports, for an HTTP provider only.
    from wherein.embedding.http import DEFAULT_MODEL
    from wherein.embedding.ollama import OllamaEmbedder
    from wherein.embedding.openai import OpenAIEmbedder

    embedder_class = {cls.provider: cls for cls in (OllamaEmbedder, OpenAIEmbedder)}[provider]
    endpoint = check_url(
        settings["embedding.api_base"], allow_remote=settings["embedding.allow_remote"]
    )
    described = {
        "provider": provider,
        "model": settings["embedding.model"] or DEFAULT_MODEL,
        "dim": None,
        "url": endpoint.base_url,
    }
    try:
        embedder = embedder_class(settings, retry=False)
    except EmbedderError as err:  # its text is redacted already; this is the last look
        return {**described, "answered": False}, redact(str(err), settings["embedding.api_key"])
    embedder.close()
    return {**described, "dim": embedder.dimension, "answered": True}, None
