"""The model calls read from every ledger, held in columns so a million lines stay small.

One request costs about 70 bytes here (typed arrays, names interned once) against roughly
400 as a Python object with its own ints; the readers stream their files line by line and
keep only this table and the dedupe keys.
"""

from __future__ import annotations

import math
from array import array
from typing import NamedTuple

__all__ = [
    "NO_COST",
    "SOURCE_CLAUDE",
    "SOURCE_CODEX",
    "SOURCE_GENERIC",
    "Request",
    "RequestTable",
]

SOURCE_CLAUDE = 0
SOURCE_CODEX = 1
SOURCE_GENERIC = 2
NO_COST = math.nan  # no cost stored in the ledger for this request


class Request(NamedTuple):
    """One model call, as a reader hands it to the table.

    A NamedTuple rather than a frozen dataclass: a reader builds one per ledger line, and a
    frozen dataclass's __init__ (object.__setattr__ per field) costs about four times more.
    """

    time: float  # epoch seconds, UTC
    session: str
    model: str
    project: str
    input: int  # uncached input tokens
    cache_read: int
    cache_write_5m: int
    cache_write_1h: int
    output: int
    stored_cost: float | None = None  # USD the ledger itself recorded, if any
    source: int = SOURCE_GENERIC

    @property
    def context(self) -> int:
        """Tokens the model read for this call: input + cache read + cache writes."""
        return self.input + self.cache_read + self.cache_write_5m + self.cache_write_1h

    @property
    def total(self) -> int:
        """Every token of the call, output included (what the Claude dedupe compares)."""
        return self.context + self.output


class RequestTable:
    """Columnar store of requests with interned session, model and project names."""

    def __init__(self) -> None:
        self.time = array("d")
        self.session = array("l")
        self.model = array("l")
        self.project = array("l")
        self.input = array("q")
        self.cache_read = array("q")
        self.cache_write_5m = array("q")
        self.cache_write_1h = array("q")
        self.output = array("q")
        self.stored_cost = array("d")
        self.source = array("b")
        self.names: list[str] = []
        self._ids: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.time)

    def name_id(self, name: str) -> int:
        """The interned id of `name`, adding it on first sight."""
        found = self._ids.get(name)
        if found is None:
            found = self._ids[name] = len(self.names)
            self.names.append(name)
        return found

    def add(self, request: Request) -> int:
        """Append a request; returns its row index."""
        self.time.append(request.time)
        self.session.append(self.name_id(request.session))
        self.model.append(self.name_id(request.model))
        self.project.append(self.name_id(request.project))
        self.input.append(request.input)
        self.cache_read.append(request.cache_read)
        self.cache_write_5m.append(request.cache_write_5m)
        self.cache_write_1h.append(request.cache_write_1h)
        self.output.append(request.output)
        self.stored_cost.append(NO_COST if request.stored_cost is None else request.stored_cost)
        self.source.append(request.source)
        return len(self.time) - 1

    def replace(self, index: int, request: Request) -> None:
        """Overwrite row `index` (a later, fuller copy of the same streamed response)."""
        self.time[index] = request.time
        self.session[index] = self.name_id(request.session)
        self.model[index] = self.name_id(request.model)
        self.project[index] = self.name_id(request.project)
        self.input[index] = request.input
        self.cache_read[index] = request.cache_read
        self.cache_write_5m[index] = request.cache_write_5m
        self.cache_write_1h[index] = request.cache_write_1h
        self.output[index] = request.output
        self.stored_cost[index] = NO_COST if request.stored_cost is None else request.stored_cost
        self.source[index] = request.source

    COLUMNS = (
        *("time", "session", "model", "project", "input", "cache_read"),
        *("cache_write_5m", "cache_write_1h", "output", "stored_cost", "source"),
    )
    NAME_COLUMNS = ("session", "model", "project")

    def extend_from(self, other: RequestTable, rows: list[int] | None = None) -> None:
        """Append `other`'s rows (all, or those listed, in that order), names re-interned."""
        ids = [self.name_id(name) for name in other.names]
        for column in self.COLUMNS:
            mine, theirs = getattr(self, column), getattr(other, column)
            if column in self.NAME_COLUMNS:
                source = theirs if rows is None else [theirs[i] for i in rows]
                mine.extend([ids[n] for n in source])
            elif rows is None:
                mine.extend(theirs)
            else:
                mine.extend([theirs[i] for i in rows])

    def copy_row(self, index: int, other: RequestTable, row: int) -> None:
        """Overwrite row `index` with `other`'s row `row` (a fuller copy of one response)."""
        for column in self.COLUMNS:
            value = getattr(other, column)[row]
            if column in self.NAME_COLUMNS:
                value = self.name_id(other.names[value])
            getattr(self, column)[index] = value

    def total(self, index: int) -> int:
        """All tokens of row `index`, output included."""
        return (
            self.input[index]
            + self.cache_read[index]
            + self.cache_write_5m[index]
            + self.cache_write_1h[index]
            + self.output[index]
        )

    def row(self, index: int) -> Request:
        """Row `index` as a record (for tests and small reports, not for the hot path)."""
        cost = self.stored_cost[index]
        return Request(
            time=self.time[index],
            session=self.names[self.session[index]],
            model=self.names[self.model[index]],
            project=self.names[self.project[index]],
            input=self.input[index],
            cache_read=self.cache_read[index],
            cache_write_5m=self.cache_write_5m[index],
            cache_write_1h=self.cache_write_1h[index],
            output=self.output[index],
            stored_cost=None if math.isnan(cost) else cost,
            source=self.source[index],
        )
