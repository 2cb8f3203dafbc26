"""Moved to `wherein.endpoint.guard`; this name stays for `history/embedder.py` until it moves.

Patch `wherein.endpoint.guard`, not this module: these are the same functions, looked up there.
"""

from wherein.endpoint.guard import Endpoint, check_url, open_endpoint

__all__ = ["Endpoint", "check_url", "open_endpoint"]
