"""Every request priced at once, in columns: what the summary, the daily chart and the
breakdowns add up in their own ways.

A request with a cost stored in its ledger line keeps it. Any other is priced by the row of
the price table in force at its time (`PriceBook.lookup`), at that row's long-context rates
when its prompt passes the row's threshold, else at its off-peak rates outside the peak
windows (`PriceRow.rates_at`), else at the standard ones. The rules are those of
`prices.py`, applied with numpy per (model, price row), so a million requests price in a
fraction of a second instead of a few seconds of Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wherein.meter.bounds import MAX_COST_USD, MAX_COUNT
from wherein.meter.prices import TOKENS_PER_UNIT, PriceBook, PriceRow, Rates
from wherein.meter.table import RequestTable

__all__ = [
    "INT64_SAFE_ROWS",
    "PARTS",
    "SECONDS_PER_DAY",
    "TIER_NAMES",
    "Priced",
    "column",
    "exact_group_sums",
    "exact_sum",
    "price_requests",
]

SECONDS_PER_DAY = 86_400
# Each request's cost in parts: four priced ones (cache writes by TTL) and a stored one.
PARTS = ("cache_read", "input", "cache_write_5m", "cache_write_1h", "output", "stored")
TIER_NAMES = ("standard", "long_context", "off_peak")
NOT_PRICED = -1  # tier of a request that was not priced: stored cost, unpriced, filtered out
# Five counts, each below MAX_COUNT (bounds.py rejects the rest), sum to less than 2**63 over
# this many rows: int64 sums of fewer rows are exact.
INT64_SAFE_ROWS = np.iinfo(np.int64).max // (5 * MAX_COUNT)
EPOCH_WEEKDAY = 3  # 1970-01-01 was a Thursday; Monday is 0, as datetime.weekday()


@dataclass
class Priced:
    """Per request (a row of the table): admitted by the filters, its parts' cost, its tier."""

    admitted: np.ndarray  # bool
    parts: dict[str, np.ndarray]  # PARTS -> USD, 0 where the part does not apply
    cost: np.ndarray  # USD: the stored cost, or the priced parts' sum; 0 when unpriced
    unpriced: np.ndarray  # bool: admitted, no stored cost and no price row for it
    tier: np.ndarray  # int8: index into TIER_NAMES, or NOT_PRICED
    context: np.ndarray  # int64 tokens read: input + cache read + cache writes
    stored: np.ndarray  # bool: admitted, and kept the cost its ledger line stored
    too_costly: np.ndarray  # bool: priced at MAX_COST_USD or more, so rejected, not admitted


def column(values) -> np.ndarray:
    """A table column as a numpy view, without copying."""
    return np.frombuffer(values, dtype=values.typecode) if len(values) else np.zeros(0)


def price_requests(
    table: RequestTable,
    prices: PriceBook,
    admitted: np.ndarray,
    *,
    one_hour_as_5m: bool = False,
) -> Priced:
    """Price every admitted request of `table` (see the module docstring).

    Args:
        one_hour_as_5m: price 1-hour cache writes at the 5-minute rate (ccusage's rule).
    """
    size = len(table)
    times = column(table.time).astype(np.float64, copy=False)
    counts = {
        name: column(getattr(table, name)).astype(np.int64, copy=False)
        for name in ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output")
    }
    context = counts["input"] + counts["cache_read"]
    context += counts["cache_write_5m"] + counts["cache_write_1h"]
    stored_cost = column(table.stored_cost).astype(np.float64, copy=False)
    has_stored = ~np.isnan(stored_cost) if size else np.zeros(0, bool)
    parts = {name: np.zeros(size) for name in PARTS}
    parts["stored"] = np.where(admitted & has_stored, np.nan_to_num(stored_cost), 0.0)
    tier = np.full(size, NOT_PRICED, dtype=np.int8)
    unpriced = np.zeros(size, dtype=bool)
    to_price = admitted & ~has_stored
    models = column(table.model).astype(np.int64, copy=False)
    for model_id in np.unique(models[to_price]):
        rows = np.flatnonzero(to_price & (models == model_id))
        candidates = prices.candidates(table.names[model_id]) or []
        starts = np.array([_start(r) for r in candidates])
        chosen = np.searchsorted(starts, times[rows], side="right") - 1 if candidates else None
        if chosen is None:
            unpriced[rows] = True
            continue
        unpriced[rows[chosen < 0]] = True
        for k, row in enumerate(candidates):
            mine = rows[chosen == k]
            if len(mine):
                _price_rows(row, mine, times, context, counts, parts, tier, one_hour_as_5m)
    cost = parts["stored"] + parts["cache_read"] + parts["input"]
    cost += parts["cache_write_5m"] + parts["cache_write_1h"] + parts["output"]
    # A stored cost this large was rejected as the line was read (bounds.check_cost); a
    # computed one is rejected here alike, and the request leaves every figure.
    too_costly = to_price & (cost >= MAX_COST_USD)
    if too_costly.any():
        for values in (*parts.values(), cost):
            values[too_costly] = 0.0
        tier[too_costly] = NOT_PRICED
        admitted = admitted & ~too_costly
    stored = admitted & has_stored
    return Priced(admitted, parts, cost, unpriced, tier, context, stored, too_costly)


def _start(row: PriceRow) -> float:
    return -np.inf if row.effective_from is None else row.effective_from


def _price_rows(
    row: PriceRow,
    rows: np.ndarray,
    times: np.ndarray,
    context: np.ndarray,
    counts: dict[str, np.ndarray],
    parts: dict[str, np.ndarray],
    tier: np.ndarray,
    one_hour_as_5m: bool,
) -> None:
    """Price `rows` (all of one model, all under `row`) by their tier (`PriceRow.rates_at`)."""
    chosen = np.zeros(len(rows), dtype=np.int8)  # standard
    if row.long_rates is not None and row.long_threshold is not None:
        chosen[context[rows] > row.long_threshold] = 1
    if row.off_peak_rates is not None:
        chosen[(chosen == 0) & ~_is_peak(row, times[rows])] = 2
    for index, rates in enumerate((row.rates, row.long_rates, row.off_peak_rates)):
        if rates is None:
            continue
        mine = rows[chosen == index]
        if len(mine):
            tier[mine] = index
            _add_parts(rates, mine, counts, parts, one_hour_as_5m)


def _add_parts(
    rates: Rates,
    rows: np.ndarray,
    counts: dict[str, np.ndarray],
    parts: dict[str, np.ndarray],
    one_hour_as_5m: bool,
) -> None:
    one_hour = rates.cache_write_5m if one_hour_as_5m else rates.cache_write_1h
    for name, rate in (
        ("cache_read", rates.cache_read),
        ("input", rates.input),
        ("cache_write_5m", rates.cache_write_5m),
        ("cache_write_1h", one_hour),
        ("output", rates.output),
    ):
        parts[name][rows] = counts[name][rows] * rate / TOKENS_PER_UNIT


def _is_peak(row: PriceRow, times: np.ndarray) -> np.ndarray:
    """`PriceRow._is_peak` for many times: a peak weekday and a minute in a peak window."""
    days = np.floor_divide(times, SECONDS_PER_DAY)
    weekdays = (days.astype(np.int64) + EPOCH_WEEKDAY) % 7
    minutes = np.floor_divide(times - days * SECONDS_PER_DAY, 60)
    peak = np.zeros(len(times), dtype=bool)
    for start, end in row.peak_windows:
        peak |= (minutes >= start) & (minutes < end)
    return peak & np.isin(weekdays, sorted(row.peak_weekdays))


def exact_sum(values: np.ndarray) -> int:
    """The sum of int64 counts as a Python int, exact however many there are."""
    return sum(
        int(values[i : i + INT64_SAFE_ROWS].sum(dtype=np.int64))
        for i in range(0, len(values), INT64_SAFE_ROWS)
    )


def exact_group_sums(groups: np.ndarray, values: np.ndarray, size: int) -> list[int]:
    """Per group id in `range(size)`, the exact sum of `values` (int64 counts) as Python ints."""
    if len(values) < INT64_SAFE_ROWS:
        sums = np.zeros(size, dtype=np.int64)
        np.add.at(sums, groups, values)
        return [int(v) for v in sums]
    totals = np.zeros(size, dtype=object)
    np.add.at(totals, groups, values.astype(object))
    return [int(v) for v in totals]
