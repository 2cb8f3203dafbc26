"""Fused candidates as arrays: what the ranking signals read of each, without a tuple apiece.

A warm search of the standard library fuses 150-200 candidates. Building a tuple for each
and reading its path and names once per signal took 0.4 ms of a 2.3 ms search, much of it
waiting on memory (the shortlist's products have just streamed the tier's copy through the
cache). As a batch (each candidate's file a number, the files' paths listed once), the
signals work per file and per array, and only the few candidates a search keeps become
`Candidate` tuples.

`batch_of` makes a batch of tuples (a fresh search, the tests). A resident process's
`PlaceTable`, made once from every chunk's place, makes one from the fused scores alone:
files looked up in an array, declared names in an index of names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from wherein.index.chunk_places import ChunkPlace
from wherein.ranking.paths import path_facts

__all__ = [
    "Candidate",
    "CandidateBatch",
    "PlaceTable",
    "batch_of",
    "last_segment",
    "name_segments",
    "symbol_names",
]


class Candidate(NamedTuple):
    """A chunk competing for a slot: where it is, what it declares, and its score.

    A named tuple, not a dataclass: a frozen dataclass costs three times as much to build.
    """

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    score: float
    prototypes: tuple[str, ...] = ()  # those of `symbols` it declares without a body


# What joins a qualified name's parts in the languages indexed: `a.b`, C++'s and Ruby's
# `a::b`, PHP's `a->b` and `a\b`, and the `a#b` of Ruby's documentation.
_QUALIFIER = re.compile(r"\.|::|->|#|\\")


def name_segments(name: str) -> list[str]:
    """The parts of a qualified name, outermost first: `a`, `b`, `c` of `a::b.c`."""
    return _QUALIFIER.split(name)


def last_segment(name: str) -> str:
    """`b` of `a.b`, `a::b`, `a->b`, `a\\b` and `a#b`."""
    return name_segments(name)[-1]


@lru_cache(maxsize=65536)
def symbol_names(symbols: tuple[str, ...]) -> frozenset[str]:
    """The names a chunk defines, each whole and by its last segment, lower-cased."""
    return frozenset(
        name for symbol in symbols for name in (symbol.lower(), last_segment(symbol).lower())
    )


@dataclass(frozen=True, eq=False)
class CandidateBatch:
    """Distinct chunks in fused order: their ids, scores and files as arrays."""

    ids: np.ndarray  # chunk ids (int64)
    scores: np.ndarray  # fused scores (float64)
    file_of: np.ndarray  # each one's file, as a position in `paths`
    paths: list[str]  # the distinct files, in order of their first candidate
    place: Callable[[int], ChunkPlace]  # a candidate's place, by its position
    # Which candidates declare one of the names given (lower-cased, as `symbol_names`).
    declaring: Callable[[Collection[str]], np.ndarray]

    def __len__(self) -> int:
        return len(self.ids)

    def candidate(self, position: int, score: float) -> Candidate:
        path, start, end, symbols, prototypes = self.place(position)
        return Candidate(int(self.ids[position]), path, start, end, symbols, score, prototypes)


def batch_of(candidates: Sequence[Candidate]) -> CandidateBatch:
    """The batch of `candidates` (distinct chunks), in their order."""
    files: dict[str, int] = {}
    file_of = [files.setdefault(c.path, len(files)) for c in candidates]

    def declaring(names: Collection[str]) -> np.ndarray:
        found = [not symbol_names(c.symbols).isdisjoint(names) for c in candidates]
        return np.array(found, dtype=bool)

    return CandidateBatch(
        ids=np.array([c.chunk_id for c in candidates], dtype=np.int64),
        scores=np.array([c.score for c in candidates], dtype=np.float64),
        file_of=np.array(file_of, dtype=np.intp),
        paths=list(files),
        place=lambda position: (*candidates[position][1:5], candidates[position].prototypes),
        declaring=declaring,
    )


class PlaceTable:
    """Every chunk's file as an array, and which chunks declare each name: made once per
    in-memory index (in its builder's thread), so a search's batch is a few array steps."""

    def __init__(
        self,
        places: Mapping[int, ChunkPlace],
        pace: Callable[[Iterable], Iterator] = iter,
    ) -> None:
        """`pace` hands the places over (a builder thread's, pausing while a search runs)."""
        self.places = places
        ids = np.fromiter(places, dtype=np.int64, count=len(places))
        order = np.argsort(ids, kind="stable")
        files: dict[str, int] = {}
        numbers = [files.setdefault(place[0], len(files)) for place in pace(places.values())]
        self._ids = ids[order]
        self._file_of = np.array(numbers, dtype=np.int32)[order]
        self._paths = list(files)
        # Which chunks declare each name: the chunk ids grouped by name, and where each
        # name's group starts (a dict of lists held 60 MB for the standard library).
        self._name_numbers: dict[str, int] = {}
        named, declared = [], []
        for chunk_id, place in pace(places.items()):
            for name in symbol_names(place[3]):
                named.append(self._name_numbers.setdefault(name, len(self._name_numbers)))
                declared.append(chunk_id)
        name_of = np.array(named, dtype=np.int64)
        self._declared = np.array(declared, dtype=np.int64)[np.argsort(name_of, kind="stable")]
        counts = np.bincount(name_of, minlength=len(self._name_numbers))
        self._name_starts = np.concatenate([[0], np.cumsum(counts)])
        for path in pace(self._paths):  # the facts the path signals read, kept by path
            path_facts(path)

    def batch(self, fused: Mapping[int, float]) -> CandidateBatch:
        """The batch of the `fused` chunks (by chunk id, in fused order) this table knows."""
        ids = np.fromiter(fused, dtype=np.int64, count=len(fused))
        scores = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
        if len(self._ids):
            at = np.minimum(np.searchsorted(self._ids, ids), len(self._ids) - 1)
            known = self._ids[at] == ids
        else:
            at, known = np.zeros(len(ids), dtype=np.intp), np.zeros(len(ids), dtype=bool)
        if not known.all():  # gone since the table was made: another writer
            ids, scores, at = ids[known], scores[known], at[known]
        numbers: dict[int, int] = {}  # the table's file numbers, in order of first candidate
        file_of = [numbers.setdefault(file, len(numbers)) for file in self._file_of[at].tolist()]
        places = self.places

        def declaring(names: Collection[str]) -> np.ndarray:
            asked = [self._name_numbers[name] for name in names if name in self._name_numbers]
            if not asked:
                return np.zeros(len(ids), dtype=bool)
            starts = self._name_starts
            found = [self._declared[starts[n] : starts[n + 1]] for n in asked]
            return np.isin(ids, np.concatenate(found))

        return CandidateBatch(
            ids=ids,
            scores=scores,
            file_of=np.array(file_of, dtype=np.intp),
            paths=[self._paths[number] for number in numbers],
            place=lambda position: places[int(ids[position])],
            declaring=declaring,
        )
