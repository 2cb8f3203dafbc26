"""`wherein baseline --by day|week|month|session|project|model`: the figures per group.

Every request falls in the group of its own time (UTC), never its session's start: a session
that runs past midnight, or into a new month, is split between the days and months it ran in.
Weeks are ISO weeks, Monday to Sunday. A model the price table does not name keeps its
tokens and requests in its row, and its cost stays unknown (`cost_usd` None, the reason
given): it is never priced as a neighbouring model, and in the other groupings its requests
are counted as unpriced.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

import numpy as np

from wherein.meter.ledgers import Ledger
from wherein.meter.prices import PriceBook
from wherein.meter.pricing import SECONDS_PER_DAY, column, exact_group_sums, price_requests
from wherein.meter.summary import TOKEN_KINDS, Filters, admitted_rows, why_unpriced

__all__ = ["BY_CHOICES", "TIME_GROUPS", "breakdowns"]

BY_CHOICES = ("day", "week", "month", "session", "project", "model")
TIME_GROUPS = ("day", "week", "month")
EPOCH_WEEKDAY = 3  # 1970-01-01 was a Thursday; Monday is 0


def breakdowns(
    ledger: Ledger,
    prices: PriceBook,
    filters: Filters,
    recall_names: Iterable[str],
    groupings: Iterable[str],
    *,
    one_hour_as_5m: bool = False,
) -> dict[str, dict]:
    """Per grouping: `{"rows": [...], "total": {...}}`, from one pricing of every request.

    A row: `key` (a date, `2026-W45`, `2026-11`, a session id, a project or a model),
    `sessions`, `requests`, `tokens` (as the summary's), `cost_usd` (None for a model with no
    price), `unpriced_requests`, `recall_sessions`; week rows add `start` (their Monday);
    session rows add `first`, `last` (ISO times), `project` and `models`; model rows add
    `unpriced_reason` when some of their requests have no price. Time groups come in time
    order, the others by cost, the dearest first.
    """
    table = ledger.table
    admitted = admitted_rows(table, filters)
    priced = price_requests(table, prices, admitted, one_hour_as_5m=one_hour_as_5m)
    rows = np.flatnonzero(priced.admitted)  # without the requests priced out of range
    recall = set(recall_names)
    is_recall = np.fromiter((name in recall for name in table.names), bool, len(table.names))
    sessions = column(table.session)[rows].astype(np.int64)
    times = column(table.time)[rows]
    days = np.floor_divide(times, SECONDS_PER_DAY).astype(np.int64)
    tokens = {kind: column(getattr(table, kind))[rows].astype(np.int64) for kind in TOKEN_KINDS}
    keys = {
        "day": days,
        "week": days - (days + EPOCH_WEEKDAY) % 7,
        "month": days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64),
        "session": sessions,
        "project": column(table.project)[rows].astype(np.int64),
        "model": column(table.model)[rows].astype(np.int64),
    }
    result = {}
    for by in groupings:
        grouped = _Grouped(keys[by], rows, sessions, is_recall, tokens, priced)
        group_rows = [
            _row(by, key, grouped, k, table.names, prices) for k, key in enumerate(grouped.ids)
        ]
        if by == "session":
            _add_session_details(group_rows, grouped, table, rows, times)
        if by not in TIME_GROUPS:
            group_rows.sort(key=lambda r: (-(r["cost_usd"] or 0.0), r["key"]))
        result[by] = {"rows": group_rows, "total": _total(grouped, sessions)}
    return result


class _Grouped:
    """Sums of the admitted requests per distinct key."""

    def __init__(self, keys, rows, sessions, is_recall, tokens, priced) -> None:
        self.ids, self.inverse = np.unique(keys, return_inverse=True)
        size = len(self.ids)
        self.requests = np.bincount(self.inverse, minlength=size)
        self.tokens = {
            kind: exact_group_sums(self.inverse, values, size) for kind, values in tokens.items()
        }
        self.cost = np.bincount(self.inverse, weights=priced.cost[rows], minlength=size)
        unpriced = priced.unpriced[rows]
        self.unpriced = np.bincount(self.inverse, weights=unpriced, minlength=size).astype(int)
        pairs = np.unique(np.stack([self.inverse, sessions]), axis=1) if len(rows) else None
        if pairs is None:
            self.sessions = np.zeros(size, dtype=int)
            self.recall_sessions = np.zeros(size, dtype=int)
        else:
            self.sessions = np.bincount(pairs[0], minlength=size)
            self.recall_sessions = np.bincount(
                pairs[0], weights=is_recall[pairs[1]], minlength=size
            ).astype(int)


def _row(by: str, key: int, grouped: _Grouped, k: int, names: list[str], prices: PriceBook):
    requests = int(grouped.requests[k])
    unpriced = int(grouped.unpriced[k])
    row = {
        "key": _label(by, int(key), names),
        "sessions": int(grouped.sessions[k]),
        "requests": requests,
        "tokens": {kind: sums[k] for kind, sums in grouped.tokens.items()},
        "cost_usd": None if by == "model" and unpriced == requests else float(grouped.cost[k]),
        "unpriced_requests": unpriced,
        "recall_sessions": int(grouped.recall_sessions[k]),
    }
    if by == "week":
        row["start"] = _date(int(key))
    if by == "model" and unpriced:
        row["unpriced_reason"] = why_unpriced(prices, names[int(key)])
    return row


def _label(by: str, key: int, names: list[str]) -> str:
    if by == "day":
        return _date(key)
    if by == "week":
        year, week, _ = datetime.fromtimestamp(key * SECONDS_PER_DAY, tz=timezone.utc).isocalendar()
        return f"{year}-W{week:02d}"
    if by == "month":
        year, month = divmod(key, 12)
        return f"{1970 + year}-{month + 1:02d}"
    return names[key]


def _date(day: int) -> str:
    return datetime.fromtimestamp(day * SECONDS_PER_DAY, tz=timezone.utc).date().isoformat()


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def _add_session_details(group_rows, grouped: _Grouped, table, rows, times) -> None:
    """First and last request, the project of the first, and every model, per session."""
    if not len(rows):
        return
    order = np.lexsort((times, grouped.inverse))  # by session, then time
    inverse = grouped.inverse[order]
    starts = np.flatnonzero(np.r_[True, inverse[1:] != inverse[:-1]])
    ends = np.r_[starts[1:], len(order)] - 1
    projects = column(table.project)[rows][order]
    models = column(table.model)[rows][order]
    by_id = {row["key"]: row for row in group_rows}
    for start, end in zip(starts, ends, strict=True):
        row = by_id[table.names[int(grouped.ids[inverse[start]])]]
        row["first"] = _iso(float(times[order[start]]))
        row["last"] = _iso(float(times[order[end]]))
        row["project"] = table.names[int(projects[start])]
        row["models"] = sorted({table.names[int(m)] for m in models[start : end + 1]})


def _total(grouped: _Grouped, sessions: np.ndarray) -> dict:
    return {
        "sessions": len(np.unique(sessions)),
        "requests": int(grouped.requests.sum()),
        "tokens": {kind: sum(sums) for kind, sums in grouped.tokens.items()},
        "cost_usd": float(grouped.cost.sum()),
        "unpriced_requests": int(grouped.unpriced.sum()),
    }
