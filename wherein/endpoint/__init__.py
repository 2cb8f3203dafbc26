"""The guarded HTTP endpoint: where text may be sent, and the only way it is sent.

`guard` checks a URL and pins the addresses it resolves to; `transport` connects only to
those, within one deadline; `client` builds the httpx client over that transport. Embedders
and the model steps (expansion, rerank) all send through it.
"""

from wherein.endpoint.guard import Endpoint, check_url, open_endpoint

__all__ = ["Endpoint", "check_url", "open_endpoint"]
