"""The embedder part of `status`: which provider and model, and whether its endpoint answers.

An HTTP endpoint is asked once, with one short text, no retry and a 10 s ceiling
(`PROBE_CEILING_S`): status must say "answered" or "configured" without hanging on a wedged
server. An in-process model is not loaded: its identity is read from the index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wherein.embedding.base import EmbedderIdentity
from wherein.endpoint.guard import check_url
from wherein.endpoint.rest import forget_rest
from wherein.errors import ConfigError, EmbedderError
from wherein.redaction import redact
from wherein.settings import Settings

__all__ = ["HTTP_PROVIDERS", "EmbedderStatus", "describe_embedder", "refused_embedder"]

# The `provider` of OllamaEmbedder and OpenAIEmbedder, known without importing them.
HTTP_PROVIDERS = ("ollama", "openai")


@dataclass(frozen=True)
class EmbedderStatus:
    """The configured embedder and whether its endpoint answered; rendered by each surface.

    `url` and `answered` are None for an in-process provider; `error` says why an endpoint
    gave no vector (redacted), None when it answered or none was asked.
    """

    provider: str
    model: str | None
    dim: int | None
    url: str | None
    answered: bool | None
    error: str | None = None

    @property
    def in_process(self) -> bool:
        return self.url is None and self.error is None

    def to_json(self) -> dict[str, Any]:
        """The `embedder` object of `status --json`."""
        return {
            "provider": self.provider,
            "model": self.model,
            "dim": self.dim,
            "url": self.url,
            "answered": self.answered,
        }


def describe_embedder(settings: Settings, indexed: str | None = None) -> EmbedderStatus:
    """The configured embedder, its endpoint asked once (an in-process model is not loaded).

    Args:
        indexed: the identity key stored in the index ("provider:model:dim"), if any.

    Raises:
        ConfigError: the endpoint guard refuses the configured URL.
    """
    provider = settings["embedding.provider"]
    if provider not in HTTP_PROVIDERS:
        model, dim = settings["embedding.model"], None
        stored = EmbedderIdentity.from_key(indexed) if indexed else None
        if stored is not None and stored.provider == provider:
            model, dim = stored.model, stored.dimension
        return EmbedderStatus(provider, model, dim, url=None, answered=None)

    # Imported only now: httpx, and the rich its CLI module imports, for an HTTP provider only.
    from wherein.embedding.http import DEFAULT_MODEL
    from wherein.embedding.ollama import OllamaEmbedder
    from wherein.embedding.openai import OpenAIEmbedder

    embedder_class = {cls.provider: cls for cls in (OllamaEmbedder, OpenAIEmbedder)}[provider]
    endpoint = check_url(
        settings["embedding.api_base"], allow_remote=settings["embedding.allow_remote"]
    )
    model = settings["embedding.model"] or DEFAULT_MODEL
    forget_rest(settings)  # asked now, whatever a recent miss said: status is how to check
    try:
        embedder = embedder_class(settings, retry=False)
    except EmbedderError as err:  # its text is redacted already; this is the last look
        error = redact(str(err), settings["embedding.api_key"])
        return EmbedderStatus(provider, model, None, endpoint.base_url, False, error)
    embedder.close()
    return EmbedderStatus(provider, model, embedder.dimension, endpoint.base_url, True)


def refused_embedder(settings: Settings, err: ConfigError) -> EmbedderStatus:
    """The status of an embedder whose URL the guard refused, for a surface that shows it
    beside the index rather than failing (the MCP `status` action; the CLI exits 2)."""
    return EmbedderStatus(
        settings["embedding.provider"],
        settings["embedding.model"],
        None,
        url=None,
        answered=False,
        error=redact(str(err), settings["embedding.api_key"]),
    )
