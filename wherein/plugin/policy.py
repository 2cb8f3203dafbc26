"""What the agent may change through `configure`: what a workspace file may, and no more.

docs/contracts.md ("Embedding"): a non-loopback endpoint is allowed only by the user's own
config file, never by the agent. The agent reads repositories and can be talked into anything
they say, so it is trusted exactly as a cloned `.wherein.toml` is (`wherein.config.Trust`): it
cannot set an endpoint or a key, allow remote endpoints, switch to a provider that sends chunks
over HTTP, turn on a stage that sends text to a model endpoint, raise a cap or a wait, or add
source roots (which would widen what the index reads). It may narrow any of these, and tune
everything else.
"""

from __future__ import annotations

from typing import Any

from wherein.config import IN_PROCESS_PROVIDERS, KEYS, Trust, load_settings, untrusted_refusal
from wherein.errors import ConfigError

__all__ = ["AGENT_KEYS", "check_agent_change", "in_process_providers"]

# Keys the agent may not set at all; the rest it may set within `untrusted_refusal`'s rules.
_NEVER = (Trust.USER, Trust.USER_FILE, Trust.INSIDE, Trust.NAMES)

# The keys `configure` takes. A secret stays among them although only a blank one is accepted:
# an agent echoing back a form with an empty secret field is told "unchanged", not "unknown".
AGENT_KEYS: tuple[str, ...] = tuple(
    key for key, spec in KEYS.items() if spec.trust not in _NEVER or spec.secret
)


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
    spec = KEYS.get(key)
    if spec is None:
        return  # the settings layer names an unknown key
    if spec.secret and (value is None or (isinstance(value, str) and not value.strip())):
        return  # a blank secret leaves the user's as it is (`configure`): not a change
    if spec.trust in _NEVER:
        raise ConfigError(f"The agent may not set '{key}': {spec.why}. {how}")
    if spec.trust is Trust.ANY:
        return
    refusal = untrusted_refusal(key, value, load_settings()[key])
    if refusal:
        raise ConfigError(f"The agent may not {refusal}. {how}")
