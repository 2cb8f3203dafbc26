"""The one place a provider name becomes an embedder."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wherein.errors import ConfigError
from wherein.settings import Settings

if TYPE_CHECKING:  # base imports numpy, which reading the provider names does not need
    from collections.abc import Sequence

    import numpy as np

    from wherein.embedding.base import Embedder, EmbedderIdentity

__all__ = [
    "FAST_TIER_PROVIDER",
    "REGISTRY",
    "DeferredEmbedder",
    "FastTierModel",
    "check_endpoint",
    "create_embedder",
    "create_fast_embedder",
    "fast_tier_identity",
    "fast_tier_model",
    "in_process_identity",
    "in_process_model",
]

# The fast tier's model (wherein.index.tiers): in process, loads in well under a second and
# embeds thousands of chunks a second, so a new workspace is searchable by meaning at once.
FAST_TIER_PROVIDER = "static"


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


def configured_model(settings: Settings) -> str:
    """The configured model as settings name it, known without loading it (an HTTP model's
    width is not): what a failure to embed is kept under (`VectorTables.note_embed_failure`),
    and an endpoint's rest after a miss (`wherein.endpoint.rest`)."""
    if settings["embedding.provider"] in ("minilm", "static"):
        return settings["embedding.provider"]
    parts = (
        settings["embedding.provider"],
        settings["embedding.model"] or "",
        settings["embedding.api_base"],
    )
    return ":".join(str(part) for part in parts)


def in_process_identity(settings: Settings) -> str | None:
    """The identity key of an in-process provider, known without loading its model.

    None for HTTP providers, whose vector width is learnt from the server.
    """
    identity = in_process_model(settings)
    return None if identity is None else identity.key()


def in_process_model(settings: Settings) -> EmbedderIdentity | None:
    """`in_process_identity`, as the identity itself."""
    name = settings["embedding.provider"]
    if name == "minilm":
        from wherein.embedding.minilm import MiniLMEmbedder

        return MiniLMEmbedder.identity
    if name == "static":
        from wherein.embedding.static import StaticEmbedder

        return StaticEmbedder.identity
    return None


def fast_tier_identity(settings: Settings) -> str | None:
    """The fast tier's identity key, or None when the configured model is that model already
    (then the full tier is as fast, and a second copy of the same vectors would be waste)."""
    if settings["embedding.provider"] == FAST_TIER_PROVIDER:
        return None
    from wherein.embedding.static import StaticEmbedder

    return StaticEmbedder.identity.key()


def fast_tier_model(settings: Settings) -> EmbedderIdentity | None:
    """`fast_tier_identity`, as the identity itself."""
    if fast_tier_identity(settings) is None:
        return None
    from wherein.embedding.static import StaticEmbedder

    return StaticEmbedder.identity


def create_fast_embedder(settings: Settings) -> Embedder | None:
    """The fast tier's embedder, or None when the configured provider is the fast model.

    Raises:
        EmbedderError: its model could not load.
    """
    if fast_tier_identity(settings) is None:
        return None
    return REGISTRY[FAST_TIER_PROVIDER](settings)


def check_endpoint(settings: Settings) -> None:
    """Refuse an HTTP provider's endpoint as the guard would, without touching the network.

    A search that needs no vectors from the configured model never builds it, and a
    refused URL must still be the configuration error it is for every other command.

    Raises:
        ConfigError: the guard refuses the URL as written.
    """
    if in_process_identity(settings) is None and settings["embedding.provider"] in REGISTRY:
        from wherein.endpoint.guard import check_url

        check_url(settings["embedding.api_base"], allow_remote=settings["embedding.allow_remote"])


class FastTierModel:
    """The fast tier's model for one job, loaded on first use and at most once.

    A search and `wherein index` both need it only if some file changed or some chunk
    lacks its fast vector; a model that fails to load is said once, in `said`.
    """

    def __init__(self, settings: Settings, said: list[str], loaded: Embedder | None = None):
        self._settings = settings
        self._said = said
        self._model = loaded
        self._tried = loaded is not None

    def __call__(self) -> Embedder | None:
        """The model, or None (no fast tier, or it would not load)."""
        if not self._tried:
            self._tried = True
            from wherein.errors import EmbedderError

            try:
                self._model = create_fast_embedder(self._settings)
            except EmbedderError as err:
                self._said.append(f"{err} The fast tier stays empty; the other tiers rank.")
        return self._model


class DeferredEmbedder:
    """A model known by its identity and loaded on its first embed (at most once if it loads).

    A fresh search whose query vector is kept beside the index (wherein.index.query_vectors)
    asks no model for it, so it need not pay the model's load.
    """

    def __init__(self, identity: EmbedderIdentity, load: Callable[[], Embedder | None]):
        self.identity = identity
        self._load = load
        self._model: Embedder | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The loaded model's `embed`.

        Raises:
            EmbedderError: the model did not load, or could not answer.
        """
        if self._model is None:
            self._model = self._load()
            if self._model is None:
                from wherein.errors import EmbedderError

                raise EmbedderError(f"The model {self.identity.key()} did not load.")
        return self._model.embed(texts)


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
