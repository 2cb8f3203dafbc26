"""Embedders: the protocol, the in-process defaults, and the provider registry.

The members are imported on first use, so that importing one module of the package
(`wherein.embedding.probe` for `status`) does not load numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
