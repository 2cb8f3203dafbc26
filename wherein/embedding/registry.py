"""The one place a provider name becomes an embedder."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wherein.config import Settings
from wherein.errors import ConfigError

if TYPE_CHECKING:  # base imports numpy, which reading the provider names does not need
    from wherein.embedding.base import Embedder

__all__ = ["REGISTRY", "create_embedder", "in_process_identity"]


def _minilm(settings: Settings) -> Embedder:
    from wherein.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _static(settings: Settings) -> Embedder:
    from wherein.embedding.static import StaticEmbedder

    return StaticEmbedder()


def _ollama(settings: Settings) -> Embedder:
    from wherein.embedding.ollama import OllamaEmbedder

    return OllamaEmbedder(settings)


def _openai(settings: Settings) -> Embedder:
    from wherein.embedding.openai import OpenAIEmbedder

    return OpenAIEmbedder(settings)


REGISTRY: dict[str, Callable[[Settings], Embedder]] = {
    "minilm": _minilm,
    "static": _static,
    "ollama": _ollama,
    "openai": _openai,
}


def in_process_identity(settings: Settings) -> str | None:
    """The identity key of an in-process provider, known without loading its model.

    None for HTTP providers, whose vector width is learnt from the server.
    """
    name = settings["embedding.provider"]
    if name == "minilm":
        from wherein.embedding.minilm import MiniLMEmbedder

        return MiniLMEmbedder.identity.key()
    if name == "static":
        from wherein.embedding.static import StaticEmbedder

        return StaticEmbedder.identity.key()
    return None


def create_embedder(settings: Settings) -> Embedder:
    """Build the configured embedder.

    Raises:
        ConfigError: the provider is not registered, or the endpoint guard refused its URL.
        EmbedderError: the provider could not start (EndpointUnreachable: no answer).
    """
    name = settings["embedding.provider"]
    factory = REGISTRY.get(name)
    if factory is None:
        raise ConfigError(
            f"Unknown embedding provider '{name}'. Choose from: {', '.join(sorted(REGISTRY))}."
        )
    return factory(settings)
