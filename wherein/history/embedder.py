"""Which embedder may read conversation text: the in-process model or a loopback endpoint only.

The loopback rule is absolute here. A person's conversations are more private than their code,
so `embedding.allow_remote` does not apply: the endpoint guard runs with it forced off, and
there is no flag that adds a remote endpoint. Nor is there a fallback: if no local embedder
answers, history says so instead of reaching for another one.
"""

from __future__ import annotations

import dataclasses

from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.embedding.registry import REGISTRY
from wherein.endpoint.guard import open_endpoint
from wherein.errors import ConfigError, EmbedderError, NoLocalEmbedder

__all__ = ["IN_PROCESS_PROVIDERS", "LOOPBACK_PROVIDERS", "local_embedder"]

# Providers that run inside this process and send nothing anywhere.
IN_PROCESS_PROVIDERS = frozenset({"minilm", "static"})
# Providers that speak HTTP: allowed only to a loopback address, whatever allow_remote says.
LOOPBACK_PROVIDERS = frozenset({"ollama", "openai"})
API_BASE_KEY = "embedding.api_base"
# Printed in refusals: the one-command way to use the in-process model for history alone.
IN_PROCESS_HINT = "WHEREIN_EMBEDDING_PROVIDER=minilm"


def local_embedder(settings: Settings) -> Embedder:
    """The configured embedder, if it keeps conversation text on this machine.

    Raises:
        ConfigError: the provider is not one history may use, or its endpoint is not loopback
            (even with allow_remote = true).
        NoLocalEmbedder: the in-process model did not load, or the loopback endpoint did not
            answer.
    """
    provider = settings["embedding.provider"]
    allowed = IN_PROCESS_PROVIDERS | LOOPBACK_PROVIDERS
    if provider not in allowed or provider not in REGISTRY:
        raise ConfigError(
            f"The embedding provider '{provider}' is not one history may send conversation "
            f"text to; choose from {', '.join(sorted(allowed & set(REGISTRY)))}, or run with "
            f"{IN_PROCESS_HINT}."
        )
    local = dataclasses.replace(
        settings, values={**settings.values, "embedding.allow_remote": False}
    )
    if provider in LOOPBACK_PROVIDERS:
        url = settings[API_BASE_KEY]
        try:
            open_endpoint(url, allow_remote=False, key=API_BASE_KEY)
        except ConfigError as err:
            raise ConfigError(
                f"History refuses the endpoint {url!r} in {API_BASE_KEY}: conversation text "
                f"goes only to the in-process model or a loopback address, and allow_remote "
                f"does not apply to history ({err}) Run with {IN_PROCESS_HINT}, or point "
                f"{API_BASE_KEY} at a server on this machine."
            ) from None
    try:
        return REGISTRY[provider](local)
    except ConfigError:
        raise
    except EmbedderError as err:
        raise NoLocalEmbedder(
            f"No local embedder answered for history ({provider}): {err} History does not "
            "fall back to any other embedder; fix this one and run it again."
        ) from err
