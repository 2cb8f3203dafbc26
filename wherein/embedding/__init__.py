"""Embedders: the protocol, the in-process defaults, and the provider registry."""

from wherein.embedding.base import Embedder, EmbedderIdentity, normalize_rows
from wherein.embedding.registry import REGISTRY, create_embedder

__all__ = ["REGISTRY", "Embedder", "EmbedderIdentity", "create_embedder", "normalize_rows"]
