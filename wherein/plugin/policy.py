"""What the agent may change through `configure`: nothing that widens where code goes.

DESIGN.md ("Embedding"): a non-loopback endpoint is allowed only by the user's own config file,
never by the agent. So the agent cannot set an endpoint, cannot allow remote endpoints, cannot
switch to a provider that sends chunks over HTTP, cannot turn on a stage that sends text to a
model endpoint, and cannot add source roots (which would let it read files outside the
workspace through the index). It may narrow any of these, and tune everything else.
"""

from __future__ import annotations

from typing import Any

from wherein.config import KEYS
from wherein.errors import ConfigError
from wherein.untrusted import echo

__all__ = ["AGENT_KEYS", "REFUSED_KEYS", "check_agent_change", "in_process_providers"]

# Providers that embed inside this process; every other provider sends chunks over HTTP.
IN_PROCESS_PROVIDERS = frozenset({"minilm", "static"})

REFUSED_KEYS: dict[str, str] = {
    "embedding.allow_remote": "it decides whether code may leave this machine",
    "embedding.api_base": "it decides where code is sent",
    "expansion.api_base": "it decides where queries are sent",
    "rerank.api_base": "it decides where code is sent",
    "scope.source_roots": "it would index folders outside the workspace",
}

# Turning these on sends text to a model endpoint; turning them off is always allowed.
ENABLE_ONLY_BY_USER: dict[str, str] = {
    "expansion.enabled": "it sends queries to a model endpoint",
    "rerank.enabled": "it sends code to a model endpoint",
}

AGENT_KEYS: tuple[str, ...] = tuple(key for key in KEYS if key not in REFUSED_KEYS)


def in_process_providers() -> list[str]:
    """The registered providers that keep code in this process, sorted."""
    from wherein.embedding.registry import REGISTRY

    return sorted(name for name in REGISTRY if name in IN_PROCESS_PROVIDERS)


def check_agent_change(key: str, value: Any) -> None:
    """Refuse a change the agent may not make.

    Raises:
        ConfigError: naming the key, why it is refused, and how the user can set it.
    """
    how = f"Ask the user to run 'wherein config set {key} ...' themselves."
    if key in REFUSED_KEYS:
        raise ConfigError(f"The agent may not set '{key}': {REFUSED_KEYS[key]}. {how}")
    if key in ENABLE_ONLY_BY_USER and value is True:
        raise ConfigError(f"The agent may not turn on '{key}': {ENABLE_ONLY_BY_USER[key]}. {how}")
    if key == "embedding.provider" and value not in in_process_providers():
        raise ConfigError(
            f"The agent may not set 'embedding.provider' to {echo(value)}: only in-process "
            f"providers ({', '.join(in_process_providers())}) keep code on this machine. {how}"
        )
