"""`wherein related FILE[:LINE]`: the chunks most like the one at a place, by its vectors.

The place is a file as results show it (`app/retry.py`, `httpx/_client.py`) or as a path on
disk, with a line (`:12`) or a result's range (`:12-30`, whose first line counts). With a
line, the origin is the smallest chunk holding it (the nearest one when the line falls
between chunks); without, the whole file, as the mean of its chunks' vectors.

No model runs: the origin's own stored vectors are the query. Each chunk is compared in the
best tier that holds both it and the origin, as a search fuses its tiers: the configured
model's vectors first, then the fast tier for the chunks they lack (`tier_view`). The origin
and every chunk of its file that overlaps it are left out.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wherein.errors import IndexError_, UsageError
from wherein.index.store import Store
from wherein.index.tiers import FAST, FULL
from wherein.retrieval.selection import top_k
from wherein.untrusted import echo, one_line

__all__ = ["Origin", "Place", "find_origin", "parse_place", "related_orders"]

# More digits than any line number has: a file of 10^18 lines is none anyone indexes.
MAX_LINE_DIGITS = 18
_WITH_LINE = re.compile(r"(.+?):(\d+)(?:-\d+)?")


@dataclass(frozen=True)
class Place:
    """Where to start, as the caller wrote it: a file and perhaps a line."""

    file: str
    line: int | None
    text: str


@dataclass(frozen=True)
class Origin:
    """The chunk (or whole file) whose likes are wanted."""

    path: str
    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    chunk_ids: tuple[int, ...]
    excluded: tuple[int, ...]  # the origin's file chunks that overlap it, the origin included

    @property
    def label(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "symbols": list(self.symbols),
        }


def parse_place(text: str) -> Place:
    """`FILE`, `FILE:LINE` or `FILE:START-END` as a `Place`.

    Raises:
        UsageError: nothing named, or a line number below 1.
    """
    given = text.strip()
    if not given:
        raise UsageError("Name a place: FILE or FILE:LINE, as search results show it.")
    found = _WITH_LINE.fullmatch(given)
    if found is None:
        return Place(given, None, given)
    digits = found.group(2)
    if len(digits) > MAX_LINE_DIGITS:  # int() refuses past 4,300 digits; no file is that long
        raise UsageError(f"{echo(given)} names a line past the end of any file.")
    line = int(digits)
    if line < 1:
        raise UsageError(f"{echo(given)} names line {line}; lines start at 1.")
    return Place(found.group(1), line, given)


def find_origin(store: Store, workspace: Path, place: Place) -> Origin:
    """The indexed chunk(s) at `place`.

    Raises:
        UsageError: the file is not in the index, has no chunks, or the line is past its end.
    """
    file_id, path, skipped = _find_file(store, workspace, place.file)
    if skipped is not None:
        raise UsageError(
            f"{path} is indexed without its text ({skipped}), so nothing can be compared "
            "with it: name a source file."
        )
    spans = [
        (int(cid), int(start), int(end), tuple(json.loads(symbols)))
        for cid, start, end, symbols in store.conn.execute(
            "SELECT id, start_line, end_line, symbols FROM chunks WHERE file_id = ? "
            "ORDER BY start_line, id",
            (file_id,),
        )
    ]
    if not spans:
        raise UsageError(f"{path} has no chunks in the index (it is empty): name another file.")
    if place.line is None:
        ids = tuple(cid for cid, *_ in spans)
        start, end = spans[0][1], max(s[2] for s in spans)
        return Origin(path, start, end, (), ids, ids)
    last = max(s[2] for s in spans)
    if place.line > last:
        raise UsageError(
            f"{path} has no line {place.line} in the index (its last chunk ends at line "
            f"{last}); name a line inside it, or run 'wherein index' if the file grew."
        )
    holding = [s for s in spans if s[1] <= place.line <= s[2]]
    if holding:
        cid, start, end, symbols = min(holding, key=lambda s: (s[2] - s[1], s[0]))
    else:  # between two chunks (blank lines): the nearest one
        cid, start, end, symbols = min(
            spans, key=lambda s: (min(abs(s[1] - place.line), abs(s[2] - place.line)), s[0])
        )
    overlapping = tuple(s[0] for s in spans if s[1] <= end and start <= s[2])
    return Origin(path, start, end, symbols, (cid,), overlapping)


def _find_file(store: Store, workspace: Path, file: str) -> tuple[int, str, str | None]:
    """(file id, display path, why it has no chunks or None) of `file`, by its display path
    or its place on disk (relative to the current folder or the workspace, or absolute)."""
    conn = store.conn
    name = file[2:] if file.startswith("./") else file
    row = conn.execute("SELECT id, path, skipped FROM files WHERE path = ?", (name,)).fetchone()
    if row is not None:
        return int(row[0]), row[1], row[2]
    if "\\" in name:  # a name with a control character, as results show it: `a\x0ab.py`
        shown = [
            r for r in conn.execute("SELECT id, path, skipped FROM files") if one_line(r[1]) == name
        ]
        if len(shown) == 1:
            return int(shown[0][0]), shown[0][1], shown[0][2]
    for candidate in _on_disk(workspace, file):
        row = conn.execute(
            "SELECT id, path, skipped FROM files WHERE fs_path = ?", (os.fsencode(candidate),)
        ).fetchone()
        if row is not None:
            return int(row[0]), row[1], row[2]
    raise UsageError(
        f"{echo(file)} is not a file in the index of {workspace}: name it as search results "
        "show it (relative to the workspace), or run 'wherein index' if it is new."
    )


def _on_disk(workspace: Path, file: str) -> list[str]:
    """Absolute paths `file` may mean: from the current folder, then from the workspace."""
    found = []
    path = Path(file).expanduser()
    bases = [path] if path.is_absolute() else [Path.cwd() / path, workspace / path]
    for base in bases:
        try:
            found += [os.path.abspath(base), str(base.resolve())]
        except (OSError, RuntimeError, ValueError):  # a loop, a NUL, a name too long
            continue
    return list(dict.fromkeys(found))


def related_orders(
    store: Store, origin: Origin, allowed: np.ndarray | None, n: int
) -> tuple[list[list[int]], dict[int, float], set[str]]:
    """Per tier used, the `n` chunks most like the origin (best first), each chunk's
    similarity in the tier that ranked it, and the names of the tiers used.

    Raises:
        IndexError_: no tier holds a vector for the origin yet.
    """
    origin_ids = np.array(origin.chunk_ids, dtype=np.int64)
    excluded = np.array(origin.excluded, dtype=np.int64)
    ranked = np.zeros(0, dtype=np.int64)  # chunks a better tier has compared already
    orders: list[list[int]] = []
    similarity_of: dict[int, float] = {}
    used: set[str] = set()
    for tier in (FULL, FAST):
        if store.get_meta(tier.meta_key) is None:
            continue
        ids, matrix = store.vectors(tier=tier)
        own = np.isin(ids, origin_ids)
        if not own.any():
            continue
        query = matrix[own].mean(axis=0)
        norm = float(np.linalg.norm(query))
        if norm == 0.0:
            continue
        keep = ~np.isin(ids, ranked) & ~np.isin(ids, excluded)
        if allowed is not None:
            keep &= np.isin(ids, allowed)
        ranked = np.union1d(ranked, ids)
        used.add(tier.name)
        sims = matrix[keep] @ (query / norm)
        candidates = ids[keep]
        picked = top_k(sims, n)
        order = [int(candidates[i]) for i in picked]
        for cid, i in zip(order, picked, strict=True):
            similarity_of.setdefault(cid, float(sims[i]))
        orders.append(order)
    if not used:
        raise IndexError_(
            f"{origin.label} has no vector in the index yet, so nothing can be compared with "
            "it: run 'wherein index', then ask again."
        )
    return orders, similarity_of, used
