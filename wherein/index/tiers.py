"""The vector tiers of an index: a fast static tier first, the configured model behind it.

A new workspace must answer in seconds, and the default model embeds a few dozen
chunks a second on two cores. So every chunk gets a cheap static vector on first
contact (the `fast` tier) and the configured model's vector later (the `full`
tier, filled by `wherein index` or by a `wherein serve` session in the
background). Each tier keeps its own table, "has a vector" flag, embedder
identity and derived cache file, so two vector spaces never mix.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAST", "FULL", "TIERS", "VectorTier"]


@dataclass(frozen=True)
class VectorTier:
    """Where one tier's vectors live. The names are code, never input: safe to put in SQL."""

    name: str
    table: str
    flag: str
    meta_key: str


FULL = VectorTier("full", "vectors", "has_vector", "embedder")
FAST = VectorTier("fast", "fast_vectors", "has_fast", "fast_embedder")
TIERS: dict[str, VectorTier] = {tier.name: tier for tier in (FAST, FULL)}
