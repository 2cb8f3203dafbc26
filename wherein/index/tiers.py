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

__all__ = ["FAST", "FAST_FUSION_WEIGHT", "FULL", "TIERS", "VectorTier"]


@dataclass(frozen=True)
class VectorTier:
    """Where one tier's vectors live. The names are code, never input: safe to put in SQL."""

    name: str
    table: str
    flag: str
    meta_key: str
    # What the tier's order weighs in a search's fusion, beside BM25's 1.0.
    fusion_weight: float = 1.0


# The static model is the weaker ranker: its order at two thirds of BM25's, the fast tier
# alone ranked better on all three sets (file MRR@10 of the 181-question language probe
# 0.872 -> 0.873, chunk 0.584 -> 0.605; semble NDCG@10 0.884 -> 0.889; commits main MRR@10
# 0.756 -> 0.769), and a complete full tier leaves it out of the fusion.
FAST_FUSION_WEIGHT = 2 / 3
FULL = VectorTier("full", "vectors", "has_vector", "embedder")
FAST = VectorTier("fast", "fast_vectors", "has_fast", "fast_embedder", FAST_FUSION_WEIGHT)
TIERS: dict[str, VectorTier] = {tier.name: tier for tier in (FAST, FULL)}
