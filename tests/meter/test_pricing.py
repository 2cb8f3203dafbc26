"""Pricing every request at once gives, request by request, what `PriceBook` gives one at a time."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from wherein.meter.prices import TOKENS_PER_UNIT, load_prices
from wherein.meter.pricing import TIER_NAMES, exact_group_sums, exact_sum, price_requests
from wherein.meter.table import Request, RequestTable

# Dated rows (claude-sonnet-5-5 from 2026-10-07, DeepSeek's changes), long-context tiers
# (claude-sonnet-4-5 above 200K), off-peak windows (deepseek-v4-pro), and a model no row names.
MODELS = [
    "claude-sonnet-5-5",
    "claude-sonnet-4-5-20250929",
    "deepseek-v4-pro",
    "deepseek-v4-flash",
    "gpt-5-codex",
    "claude-mystery-9",
]
START = datetime(2026, 4, 20, tzinfo=timezone.utc).timestamp()


def _table(count: int, seed: int) -> RequestTable:
    rng = random.Random(seed)
    table = RequestTable()
    for i in range(count):
        big = rng.random() < 0.2
        table.add(
            Request(
                time=START + rng.uniform(0, 220 * 86_400),
                session=f"s{i % 7}",
                model=rng.choice(MODELS),
                project="p",
                input=rng.randint(0, 5000),
                cache_read=rng.randint(150_000, 400_000) if big else rng.randint(0, 50_000),
                cache_write_5m=rng.randint(0, 3000),
                cache_write_1h=rng.randint(0, 3000),
                output=rng.randint(0, 4000),
                stored_cost=0.5 if rng.random() < 0.05 else None,
            )
        )
    return table


@pytest.mark.parametrize("one_hour_as_5m", [False, True])
def test_each_request_costs_what_its_price_row_says(one_hour_as_5m):
    book = load_prices()
    table = _table(3000, seed=11)
    admitted = np.ones(len(table), dtype=bool)
    admitted[::13] = False
    priced = price_requests(table, book, admitted, one_hour_as_5m=one_hour_as_5m)
    tiers_seen = set()
    for i in range(len(table)):
        request = table.row(i)
        if not admitted[i]:
            assert (priced.cost[i], priced.unpriced[i], priced.stored[i]) == (0, False, False)
            continue
        if request.stored_cost is not None:
            assert priced.cost[i] == request.stored_cost and priced.stored[i]
            continue
        row = book.lookup(request.model, request.time)
        if row is None:
            assert priced.unpriced[i] and priced.cost[i] == 0
            continue
        rates, tier = row.rates_at(request.time, request.context)
        one_hour = rates.cache_write_5m if one_hour_as_5m else rates.cache_write_1h
        expected = (
            request.input * rates.input
            + request.cache_read * rates.cache_read
            + request.cache_write_5m * rates.cache_write_5m
            + request.cache_write_1h * one_hour
            + request.output * rates.output
        ) / TOKENS_PER_UNIT
        assert priced.cost[i] == pytest.approx(expected, rel=1e-12), (i, request)
        assert TIER_NAMES[priced.tier[i]] == tier
        tiers_seen.add(tier)
    assert tiers_seen == set(TIER_NAMES)  # every tier was met, so each was checked
    assert priced.unpriced.any()


def test_exact_sums_hold_past_float_precision():
    values = np.full(5, 10**12 - 1, dtype=np.int64)
    assert exact_sum(values) == 5 * (10**12 - 1)
    groups = np.array([0, 1, 1, 0, 1])
    assert exact_group_sums(groups, values, 2) == [2 * (10**12 - 1), 3 * (10**12 - 1)]
    odd = np.array([2**53 + 1, 1], dtype=np.int64)  # float64 would round this sum
    assert exact_sum(odd) == 2**53 + 2


def test_peak_hours_follow_utc_weekday_and_minute():
    book = load_prices()
    table = RequestTable()
    tuesday = datetime(2026, 11, 24, tzinfo=timezone.utc)
    for moment in (
        tuesday + timedelta(hours=7, minutes=30),
        tuesday + timedelta(hours=4, minutes=30),
        tuesday + timedelta(days=4, hours=7, minutes=30),
        tuesday + timedelta(hours=10),
    ):
        table.add(Request(moment.timestamp(), "s", "deepseek-v4-pro", "p", 1000, 0, 0, 0, 1000))
    priced = price_requests(table, book, np.ones(len(table), dtype=bool))
    assert [TIER_NAMES[t] for t in priced.tier] == ["standard", "off_peak", "off_peak", "off_peak"]
