"""The HTTP client for a guarded endpoint: pinned addresses, no proxies, no redirects.

Embedders (`embedding/http.py`) and the chat steps (`ranking/chat.py`) both send through it.
"""

from __future__ import annotations

import httpx

from wherein import __version__
from wherein.endpoint.guard import Endpoint
from wherein.endpoint.transport import PinnedTransport
from wherein.errors import EmbedderError

__all__ = ["build_client"]


def build_client(endpoint: Endpoint, *, api_key: str | None, max_connections: int) -> httpx.Client:
    """An httpx client that reaches `endpoint`'s validated addresses and nothing else.

    Raises:
        EmbedderError: `api_key` holds a character no HTTP header can carry; nothing is sent.
    """
    headers = {"User-Agent": f"wherein/{__version__}", "Accept": "application/json"}
    if api_key:
        if not (api_key.isascii() and api_key.isprintable() and api_key == api_key.strip()):
            # httpx would refuse it with the header, key and all, in its message (or a bare
            # UnicodeEncodeError), and only once a request is under way.
            raise EmbedderError(
                "embedding.api_key holds a character an HTTP header cannot carry (a line "
                "break, a control character, a space at either end or a non-ASCII letter), "
                "so it was not sent; set the key again exactly as your provider issued it."
            )
        headers["Authorization"] = f"Bearer {api_key}"
    return httpx.Client(
        transport=PinnedTransport(endpoint, max_connections=max_connections),
        trust_env=False,
        follow_redirects=False,
        headers=headers,
    )
