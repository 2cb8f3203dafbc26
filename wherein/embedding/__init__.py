"""Embedders: the protocol, the in-process defaults, and the provider registry.

The members are imported on first use, so that importing one module of the package
(`wherein.embedding.probe` for `status`) does not load numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.embedding.base import Embedder, EmbedderIdentity, normalize_rows
    from wherein.embedding.registry import REGISTRY, create_embedder

__all__ = ["REGISTRY", "Embedder", "EmbedderIdentity", "create_embedder", "normalize_rows"]

_MODULE_OF = {
    "REGISTRY": "registry",
    "Embedder": "base",
    "EmbedderIdentity": "base",
    "create_embedder": "registry",
    "normalize_rows": "base",
}


__getattr__, __dir__ = lazy_members(__name__, _MODULE_OF)
