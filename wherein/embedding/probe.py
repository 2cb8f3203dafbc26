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

__all__ = ["describe_embedder"]


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
    from wherein.embedding.ollama import OllamaEmbedder
    from wherein.embedding.openai import OpenAIEmbedder

    http_providers = {cls.provider: cls for cls in (OllamaEmbedder, OpenAIEmbedder)}
    provider = settings["embedding.provider"]
    embedder_class = http_providers.get(provider)
    if embedder_class is None:
        model, dim = settings["embedding.model"], None
        if indexed:
            stored_provider, rest = indexed.split(":", 1)
            stored_model, _, stored_dim = rest.rpartition(":")
            if stored_provider == provider:
                model, dim = stored_model, int(stored_dim)
        described = {"provider": provider, "model": model, "dim": dim, "url": None}
        return {**described, "answered": None}, None

    from wherein.embedding.http import DEFAULT_MODEL

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
    except EmbedderError as err:
        return {**described, "answered": False}, str(err)
    embedder.close()
    return {**described, "dim": embedder.dimension, "answered": True}, None
