"""The workspace's index and the shared package indexes it names, read as one store.

A search ranks every chunk together: each ranker's order is one list over all the indexes
(vectors by similarity over one stacked matrix, BM25 by score merged across the indexes), and
one RRF fuses those orders, as it does for a single index; so a library chunk outranks the
workspace's own only by matching better. The search pipeline reads this object through the
same methods it reads a `Store` with, so it needs no second code path.

Chunk ids stay each index's own: a member's ids are shifted by `member number << ID_SHIFT`,
far above any id one SQLite index hands out. A member index contributes only the files this
workspace has with the same bytes (`overlay.PackageCheck.matching`); its rows come back under
the package's label as `root`, with `source_path` in this workspace's environment.
"""

from __future__ import annotations

import heapq
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from wherein.errors import IndexError_
from wherein.index.location import INDEX_FILE_NAME
from wherein.index.store import ChunkRow, Store, open_store
from wherein.index.tiers import FULL, TIERS, VectorTier
from wherein.packages.plan import PackageMember, PackagePlan

__all__ = ["FederatedStore", "federate", "release"]

# Member k's chunk ids are k << ID_SHIFT + id: 2**40 ids per index, 2**23 members in int64.
ID_SHIFT = 40
_LOW = (1 << ID_SHIFT) - 1
# An mtime no file has: `hits.is_stale` then reports the row stale.
STALE_MTIME = -1


@dataclass
class _Part:
    store: Store
    offset: int
    member: PackageMember | None  # None: the workspace's own index
    allowed: np.ndarray | None  # the member's chunk ids this workspace may rank (sorted)


def federate(store: Store, plan: PackagePlan | None, warnings: list[str]) -> Store:
    """`store` alone when no package index is usable, else a `FederatedStore` over all."""
    if plan is None or not plan.members:
        return store
    parts = [_Part(store, 0, None, None)]
    for number, member in enumerate(plan.members, start=1):
        try:
            shared = open_store(member.directory / INDEX_FILE_NAME)
        except (IndexError_, sqlite3.Error) as err:  # damaged or busy: searched without it
            warnings.append(f"The shared index of {member.package.label} cannot be read ({err}).")
            continue
        parts.append(_Part(shared, number << ID_SHIFT, member, _allowed(shared, member)))
    return FederatedStore(parts) if len(parts) > 1 else store


def release(store: Store) -> None:
    """Close the package indexes a `federate` call opened (the workspace's stays open)."""
    if isinstance(store, FederatedStore):
        store.close_members()


def _allowed(store: Store, member: PackageMember) -> np.ndarray:
    label = member.package.label
    keep = {f"{label}/{rel}" for rel in member.check.matching}
    ids = [cid for cid, path in store.chunk_paths().items() if path in keep]
    return np.array(sorted(ids), dtype=np.int64)


class FederatedStore:
    """Several indexes behind the read methods a search uses (`Store`'s names and meaning)."""

    def __init__(self, parts: list[_Part]) -> None:
        self._parts = parts
        self._own = parts[0].store
        self.path = self._own.path
        self.conn = None  # no one connection: narrowing goes through `narrowed` per index
        self._labels = {p.member.package.label for p in parts[1:] if p.member is not None}

    # -- the workspace's own store -------------------------------------------------------

    @property
    def notice(self) -> str | None:
        return self._own.notice

    @notice.setter
    def notice(self, value: str | None) -> None:
        self._own.notice = value

    def close_members(self) -> None:
        for part in self._parts[1:]:
            part.store.close()

    def get_meta(self, key: str) -> str | None:
        """The workspace's value; for a vector tier it lacks, the first member's."""
        value = self._own.get_meta(key)
        if value is None and key in {tier.meta_key for tier in TIERS.values()}:
            for part in self._parts[1:]:
                value = part.store.get_meta(key)
                if value is not None:
                    break
        return value

    # -- counts ----------------------------------------------------------------------------

    def _same_space(self, tier: VectorTier) -> list[_Part]:
        """The indexes whose `tier` vectors come from the model this search ranks it by."""
        wanted = self.get_meta(tier.meta_key)
        return [p for p in self._parts if p.store.get_meta(tier.meta_key) == wanted]

    def chunk_count(self) -> int:
        own = self._own.chunk_count()
        return own + sum(len(p.allowed) for p in self._parts[1:] if p.allowed is not None)

    def pending_count(self, tier: VectorTier = FULL) -> tuple[int, int]:
        files = chunks = 0
        for part in self._parts:
            f, c = part.store.pending_count(tier)
            files, chunks = files + f, chunks + c
        return files, chunks

    def has_pending(self, tier: VectorTier = FULL) -> bool:
        return any(p.store.has_pending(tier) for p in self._parts)

    def has_vectors(self, tier: VectorTier = FULL) -> bool:
        return any(p.store.has_vectors(tier) for p in self._same_space(tier))

    def vectors_versions(self, tiers: Sequence[VectorTier]) -> list[str]:
        """Changes whenever any index's chunks or vectors change, or the files allowed do."""
        versions = list(self._own.vectors_versions(tiers))
        for part in self._parts[1:]:
            allowed = part.allowed if part.allowed is not None else np.zeros(0, np.int64)
            marks = f"{part.member.package.label}:{len(allowed)}:{hash(allowed.tobytes())}"
            versions += [f"{v}@{marks}" for v in part.store.vectors_versions(tiers)]
        return versions

    # -- reads for ranking ------------------------------------------------------------------

    def _ids(self, part: _Part, ids: np.ndarray) -> np.ndarray:
        if part.allowed is not None:
            ids = ids[np.isin(ids, part.allowed)]
        return ids + part.offset if part.offset else ids

    def _split(self, ids: Sequence[int]) -> dict[int, list[int]]:
        by_part: dict[int, list[int]] = {}
        for gid in ids:
            by_part.setdefault(int(gid) >> ID_SHIFT, []).append(int(gid) & _LOW)
        return by_part

    def vectors(
        self, chunk_ids: np.ndarray | None = None, tier: VectorTier = FULL
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every index's vectors of `tier` in one matrix: one similarity order over all."""
        id_parts, rows = [], []
        for part in self._same_space(tier):
            ids, matrix = part.store.vectors(tier=tier)
            if part.allowed is not None and len(ids):
                keep = np.isin(ids, part.allowed)
                ids, matrix = ids[keep], matrix[keep]
            if len(ids):
                id_parts.append(ids + part.offset)
                rows.append(matrix)
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids, matrix = np.concatenate(id_parts), np.vstack(rows)
        if chunk_ids is not None:
            keep = np.isin(ids, chunk_ids)
            ids, matrix = ids[keep], matrix[keep]
        return ids, matrix

    def chunk_table(self, path_prefixes: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        id_parts, token_parts = [], []
        for part in self._parts:
            ids, tokens = part.store.chunk_table(path_prefixes)
            if part.allowed is not None:
                keep = np.isin(ids, part.allowed)
                ids, tokens = ids[keep], tokens[keep]
            id_parts.append(ids + part.offset)
            token_parts.append(tokens)
        return np.concatenate(id_parts), np.concatenate(token_parts)

    def lexical_order(
        self, terms: Sequence[str], limit: int, path_prefixes: Sequence[str] = ()
    ) -> list[tuple[int, float]]:
        """(id, BM25 score) over every index, best first: each index's own scores, merged.

        BM25 scores from two indexes use each one's own statistics, so they are close, not
        equal; RRF reads only the ranks, which is what makes the merge good enough.
        """
        found = []
        for part in self._parts:
            # Over-asked for a member: its stale files' chunks are dropped after the query.
            wanted = limit if part.allowed is None else limit * 2
            for cid, score in part.store.lexical_order(terms, wanted, path_prefixes):
                if part.allowed is None or _contains(part.allowed, cid):
                    found.append((cid + part.offset, score))
        return heapq.nlargest(limit, found, key=lambda item: (item[1], -item[0]))

    def lexical_matches(self, terms: Sequence[str]) -> bool:
        return any(p.store.lexical_matches(terms) for p in self._parts)

    def narrowed(self, prefixes, files, match):
        """`narrowing.narrow` over every index, ids shifted, or None when nothing narrows."""
        from wherein.narrowing import Narrowed, narrow

        ids, counts, any_narrowed = [], {}, False
        for part in self._parts:
            found = narrow(part.store, prefixes, files, match)
            if found is None:
                continue
            any_narrowed = True
            kept = self._ids(part, found.ids)
            ids.append(kept)
            shown = set(kept.tolist())
            for cid, n in found.counts.items():
                if cid + part.offset in shown:
                    counts[cid + part.offset] = n
        if not any_narrowed:
            return None
        return Narrowed(np.sort(np.concatenate(ids)) if ids else np.zeros(0, np.int64), counts)

    def lexical_within(self, terms: Sequence[str], limit: int, ids: np.ndarray):
        from wherein.narrowing import lexical_within

        found = []
        for number, local in self._split(ids).items():
            part = self._parts[number]
            for cid, score in lexical_within(part.store, terms, limit, np.array(local)):
                found.append((cid + part.offset, score))
        return heapq.nlargest(limit, found, key=lambda item: (item[1], -item[0]))

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Rows under the ids asked for; a package's as installed in this workspace."""
        rows: dict[int, ChunkRow] = {}
        for number, local in self._split(chunk_ids).items():
            part = self._parts[number]
            for cid, row in part.store.chunk_rows(local).items():
                if part.member is not None:
                    row = _as_here(part, row)
                elif row.path.split("/", 1)[0] in self._labels:
                    row = _overlaid(row)
                rows[cid + part.offset] = row
        return rows

    def file_paths(self) -> list[str]:
        paths = list(self._own.file_paths())
        for part in self._parts[1:]:
            label = part.member.package.label
            paths += [f"{label}/{rel}" for rel in part.member.check.matching]
        return paths


def _contains(sorted_ids: np.ndarray, value: int) -> bool:
    at = int(np.searchsorted(sorted_ids, value))
    return at < len(sorted_ids) and int(sorted_ids[at]) == value


def _overlaid(row: ChunkRow) -> ChunkRow:
    """A package file edited in place, from the workspace's overlay: reported `stale` (it is
    not the installed version's code), under the package's label as `root`."""
    return replace(row, root=row.path.split("/", 1)[0], mtime_ns=STALE_MTIME)


def _as_here(part: _Part, row: ChunkRow) -> ChunkRow:
    """A shared row as this workspace has the file: its own path, size and mtime."""
    package = part.member.package
    rel = row.path.split("/", 1)[1] if "/" in row.path else row.path
    size, mtime_ns = part.member.check.matching.get(rel, (row.size, row.mtime_ns))
    return replace(
        row,
        root=package.label,
        fs_path=os.fsencode(package.base / rel),
        size=size,
        mtime_ns=mtime_ns,
    )
