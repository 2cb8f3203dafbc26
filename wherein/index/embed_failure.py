"""Why `wherein index` could not embed with the configured model, kept in the index's meta.

A search that ranks without the configured model's vectors, and `status`, say why until a
run embeds again; a failure kept for another model (the configuration changed since) is
not this one's. Here, not beside the vectors: `status` reads it without importing numpy.
"""

from __future__ import annotations

import json

__all__ = ["EMBED_FAILURE", "embed_failure_of", "failure_value"]

# The meta key.
EMBED_FAILURE = "embed_failure"


def failure_value(message: str | None, configured: str) -> str:
    """The meta value that keeps `message` for the model `configured`; "" for none."""
    return "" if message is None else json.dumps({"model": configured, "message": message})


def embed_failure_of(kept: str | None, configured: str) -> str | None:
    """The message of the failure the meta value `kept` holds, when it was `configured`'s."""
    try:
        failure = json.loads(kept) if kept else None
    except ValueError:
        return None
    if not isinstance(failure, dict) or failure.get("model") != configured:
        return None
    message = failure.get("message")
    return message if isinstance(message, str) else None
