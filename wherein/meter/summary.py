"""The baseline figures: requests, cost, cache hit rate, context per request, recall groups.

Context of a request = input + cache read + cache write tokens: what the model had to read.
Two averages are reported because they answer different questions. The pooled average counts
every request once, so a long session with hundreds of large requests dominates it; the
typical average is the mean of each session's own average, so every session counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from wherein.meter.bounds import PRICED_COST_TOO_LARGE
from wherein.meter.ledgers import Ledger
from wherein.meter.prices import PriceBook
from wherein.meter.pricing import (
    SECONDS_PER_DAY,
    Priced,
    column,
    exact_group_sums,
    exact_sum,
    price_requests,
)
from wherein.meter.table import RequestTable
from wherein.meter.usage import SEARCH_ACTION, UsageRow
from wherein.untrusted import cut_middle, one_line

__all__ = [
    "CHARS_PER_TOKEN",
    "COST_PARTS",
    "TOKEN_KINDS",
    "Filters",
    "admitted_rows",
    "day_costs",
    "recall_session_names",
    "summarize",
    "why_unpriced",
]

# Tokens kept out of context are estimated from characters; four characters a token is the
# usual rule of thumb for English and code, and source minus returned is an upper bound,
# since the agent would not have read all of the source without recall.
CHARS_PER_TOKEN = 4
BASELINE, RECALL = "baseline", "recall"
TOKEN_KINDS = ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output")
COST_PARTS = ("cache_read", "input", "cache_write", "output", "stored")
TIERS = ("standard", "long_context", "off_peak")


@dataclass(frozen=True)
class Filters:
    """Which requests count: from `since` (inclusive) to `until` (exclusive), epoch seconds;
    `project` keeps requests whose project path or name contains the text."""

    since: float | None = None
    until: float | None = None
    project: str | None = None

    def admits_time(self, when: float) -> bool:
        """True when `when` falls inside the time window."""
        return (self.since is None or when >= self.since) and (
            self.until is None or when < self.until
        )


class _Tally:
    """Sums for one group of sessions."""

    __slots__ = ("context", "cost", "requests", "sessions")

    def __init__(self) -> None:
        self.requests = 0
        self.context = 0
        self.cost = 0.0
        self.sessions: list[tuple[int, int]] = []  # (requests, context) per session

    def add_session(self, requests: int, context: int, cost: float) -> None:
        self.requests += requests
        self.context += context
        self.cost += cost
        self.sessions.append((requests, context))

    def pooled(self) -> float | None:
        """Context tokens per request over every request of the group."""
        return self.context / self.requests if self.requests else None

    def typical(self) -> float | None:
        """The mean of each session's own context per request."""
        if not self.sessions:
            return None
        return sum(context / requests for requests, context in self.sessions) / len(self.sessions)

    def as_dict(self) -> dict:
        return {
            "sessions": len(self.sessions),
            "requests": self.requests,
            "avg_context_pooled": self.pooled(),
            "avg_context_typical": self.typical(),
            "cost_usd": self.cost,
        }


def summarize(
    ledger: Ledger,
    usage_rows: Sequence[UsageRow],
    prices: PriceBook,
    filters: Filters = Filters(),  # noqa: B008 - frozen, so a shared default is safe
    *,
    one_hour_as_5m: bool = False,
) -> dict:
    """Every figure of the report as one JSON-ready dict.

    Args:
        ledger: the requests read.
        usage_rows: wherein's own recall rows, joined to sessions by id.
        prices: the price table.
        filters: which requests count.
        one_hour_as_5m: price 1-hour cache writes at the 5-minute rate (ccusage's rule, for
            comparison only; Anthropic bills them at twice the input rate).
    """
    totals = _Totals(ledger, prices, filters, one_hour_as_5m)
    names = ledger.table.names
    recall_rows = _recall_rows(usage_rows, filters)
    used_recall = recall_session_names(ledger, usage_rows, filters)
    groups = {BASELINE: _Tally(), RECALL: _Tally()}
    everyone = _Tally()
    for session_id, (requests, context, cost) in totals.sessions.items():
        for tally in (groups[RECALL if names[session_id] in used_recall else BASELINE], everyone):
            tally.add_session(int(requests), int(context), cost)
    session_names = {names[s] for s in totals.sessions}
    recall_sessions = session_names & used_recall
    period = _period(totals.days)
    span = period["period"]["days"]
    tokens = totals.tokens
    context_tokens = tokens["input"] + tokens["cache_read"]
    context_tokens += tokens["cache_write_5m"] + tokens["cache_write_1h"]
    summary = {
        "sessions": len(totals.sessions),
        "requests": everyone.requests,
        "cost_usd": everyone.cost,
        "cache_hit_rate": tokens["cache_read"] / context_tokens if context_tokens else None,
        "avg_context_pooled": everyone.pooled(),
        "avg_context_typical": everyone.typical(),
        "malformed_lines": ledger.stats.malformed,
        "rejected_rows": ledger.stats.rejected + totals.too_costly,
        "rejected": [*ledger.stats.rejected_list(), *totals.too_costly_list],
        "unpriced_models": [
            {"model": model, "requests": n, "tokens": t, "reason": why_unpriced(prices, model)}
            for model, (n, t) in sorted(totals.unpriced.items())
        ],
        "unpriced_requests": sum(n for n, _ in totals.unpriced.values()),
        "stored_cost_requests": totals.stored_requests,
        "recall_used": bool(groups[RECALL].sessions),
        "groups": {name: tally.as_dict() for name, tally in groups.items()},
        "tokens": tokens,
        "cost_split_usd": totals.split,
        "cache_write_split_usd": totals.write_split,
        "price_tiers": totals.tiers,
        **period,
        "calls_per_day": everyone.requests / span if span else None,
        "cost_per_day": everyone.cost / span if span else None,
        "sidechain_requests": ledger.sidechain_requests,
        "duplicate_lines": ledger.stats.duplicate_lines,
        "repeated_events": ledger.stats.repeated_events,
        "replayed_turns": ledger.stats.replayed_turns,
        "not_understood": ledger.stats.not_understood_list(),
        "unmatched_usage_rows": sum(1 for r in recall_rows if r.session not in session_names),
        "sources": {
            "claude_files": len(ledger.files.claude),
            "codex_files": len(ledger.files.codex),
            "generic_files": len(ledger.files.generic),
            "lines": ledger.stats.lines,
            "skipped_lines": ledger.stats.skipped_lines,
            "unreadable": list(ledger.stats.unreadable),
            "malformed_by_file": dict(ledger.stats.malformed_by_file),
        },
        "rules": {
            "dedupe": ledger.dedupe,
            "one_hour_cache_writes": "5m rate" if one_hour_as_5m else "1h rate",
            "price_tables": list(prices.origins),
            "days": "UTC",
        },
    }
    summary["groups"][RECALL]["usage"] = _recall_usage(
        [row for row in recall_rows if row.session in recall_sessions],
        sum(ledger.recall_calls.get(s, 0) for s in recall_sessions),
    )
    return summary


def recall_session_names(
    ledger: Ledger,
    usage_rows: Sequence[UsageRow],
    filters: Filters = Filters(),  # noqa: B008 - frozen, so a shared default is safe
) -> set[str]:
    """Sessions that used recall: a recall tool_use in a transcript, or a logged search row."""
    used = {session for session, calls in ledger.recall_calls.items() if calls > 0}
    return used | {row.session for row in _recall_rows(usage_rows, filters)}


def day_costs(
    ledger: Ledger,
    prices: PriceBook,
    filters: Filters = Filters(),  # noqa: B008 - frozen, so a shared default is safe
    *,
    one_hour_as_5m: bool = False,
) -> list[dict]:
    """Cost per UTC day from the first to the last day with a request, split as
    `cost_split_usd` is; days without a request are listed with zeros."""
    totals = _Totals(ledger, prices, filters, one_hour_as_5m)
    if not totals.days:
        return []
    rows = np.flatnonzero(totals.priced.admitted)
    ids, inverse = np.unique(totals.day_numbers, return_inverse=True)
    parts = totals.priced.parts
    sums = {
        name: np.bincount(inverse, weights=parts[name][rows], minlength=len(ids))
        for name in (*COST_PARTS, "cache_write_5m", "cache_write_1h")
        if name != "cache_write"
    }
    by_day = {
        int(day): {
            "cache_read": float(sums["cache_read"][k]),
            "input": float(sums["input"][k]),
            "cache_write": float(sums["cache_write_5m"][k] + sums["cache_write_1h"][k]),
            "output": float(sums["output"][k]),
            "stored": float(sums["stored"][k]),
        }
        for k, day in enumerate(ids)
    }
    empty = dict.fromkeys(COST_PARTS, 0.0)
    return [
        {"date": _date(day), **by_day.get(day, empty)}
        for day in range(min(by_day), max(by_day) + 1)
    ]


def _recall_rows(usage_rows: Sequence[UsageRow], filters: Filters) -> list[UsageRow]:
    return [
        row for row in usage_rows if row.action == SEARCH_ACTION and filters.admits_time(row.time)
    ]


def admitted_rows(table: RequestTable, filters: Filters) -> np.ndarray:
    """bool per request: inside the time window and the project filter."""
    times = column(table.time)
    keep = np.ones(len(table), dtype=bool)
    if filters.since is not None:
        keep &= times >= filters.since
    if filters.until is not None:
        keep &= times < filters.until
    if filters.project is not None and len(table):
        wanted = filters.project
        matches = np.fromiter((wanted in name for name in table.names), bool, len(table.names))
        keep &= matches[column(table.project)]
    return keep


class _Totals:
    """The sums of one pricing of every admitted request (see `pricing.py`)."""

    def __init__(self, ledger: Ledger, prices: PriceBook, filters: Filters, one_hour_as_5m: bool):
        table = ledger.table
        admitted = admitted_rows(table, filters)
        priced = price_requests(table, prices, admitted, one_hour_as_5m=one_hour_as_5m)
        self.priced = priced
        rows = np.flatnonzero(priced.admitted)  # without the requests priced out of range
        self.tokens = {kind: exact_sum(column(getattr(table, kind))[rows]) for kind in TOKEN_KINDS}
        parts = {name: float(values[rows].sum()) for name, values in priced.parts.items()}
        self.split = {
            "cache_read": parts["cache_read"],
            "input": parts["input"],
            "cache_write": parts["cache_write_5m"] + parts["cache_write_1h"],
            "output": parts["output"],
            "stored": parts["stored"],
        }
        self.write_split = {"5m": parts["cache_write_5m"], "1h": parts["cache_write_1h"]}
        tiers = np.bincount(priced.tier[rows][priced.tier[rows] >= 0], minlength=len(TIERS))
        self.tiers = {name: int(tiers[i]) for i, name in enumerate(TIERS)}
        self.stored_requests = int(priced.stored.sum())
        self.too_costly, self.too_costly_list = _too_costly(table, priced.too_costly)
        self.unpriced: dict[str, list[int]] = {}  # model -> [requests, tokens]
        lost = np.flatnonzero(priced.unpriced)
        if len(lost):
            models = column(table.model)[lost]
            tokens = priced.context[lost] + column(table.output)[lost].astype(np.int64)
            ids, inverse = np.unique(models, return_inverse=True)
            counts = np.bincount(inverse, minlength=len(ids))
            sums = exact_group_sums(inverse, tokens, len(ids))
            for k, model_id in enumerate(ids):
                self.unpriced[table.names[model_id]] = [int(counts[k]), sums[k]]
        # session id -> [requests, context, cost]; UTC day number -> [requests, cost]
        self.sessions = _by_group(column(table.session)[rows], priced, rows)
        self.day_numbers = np.floor_divide(column(table.time)[rows], SECONDS_PER_DAY).astype(
            np.int64
        )
        self.days = {
            day: [requests, cost]
            for day, (requests, _, cost) in _by_group(self.day_numbers, priced, rows).items()
        }


def _by_group(groups: np.ndarray, priced: Priced, rows: np.ndarray) -> dict[int, list]:
    """Per distinct value of `groups` (one per row of `rows`): requests, context, cost."""
    if not len(rows):
        return {}
    ids, inverse = np.unique(groups, return_inverse=True)
    requests = np.bincount(inverse, minlength=len(ids))
    context = exact_group_sums(inverse, priced.context[rows], len(ids))
    cost = np.bincount(inverse, weights=priced.cost[rows], minlength=len(ids))
    return {
        int(group): [int(requests[k]), context[k], float(cost[k])] for k, group in enumerate(ids)
    }


def _recall_usage(rows: list[UsageRow], calls_in_transcripts: int) -> dict:
    returned = sum(row.returned_chars for row in rows)
    source = sum(row.source_chars for row in rows)
    return {
        "calls_logged": len(rows),
        "calls_in_transcripts": calls_in_transcripts,
        "returned_chars": returned,
        "source_chars": source,
        "tokens_kept_out_estimate": max(source - returned, 0) // CHARS_PER_TOKEN,
        "estimate": f"upper bound, chars/{CHARS_PER_TOKEN}",
    }


def _period(days: dict[int, list[float]]) -> dict:
    """The calendar span of the requests (UTC days) and the per-day figures."""
    if not days:
        return {"period": {"first": None, "last": None, "days": 0, "active_days": 0}, "per_day": []}
    first, last = min(days), max(days)
    return {
        "period": {
            "first": _date(first),
            "last": _date(last),
            "days": last - first + 1,
            "active_days": len(days),
        },
        "per_day": [
            {"date": _date(day), "requests": int(days[day][0]), "cost_usd": days[day][1]}
            for day in sorted(days)
        ],
    }


def _date(day: int) -> str:
    return datetime.fromtimestamp(day * SECONDS_PER_DAY, tz=timezone.utc).date().isoformat()


def why_unpriced(prices: PriceBook, model: str) -> str:
    """Why `model` has no price: not in the table, or not yet at the time asked about."""
    rows = prices.candidates(model)
    if not rows:
        return "not in the price table"
    first = min(r.effective_from for r in rows if r.effective_from is not None)
    return f"no price before {datetime.fromtimestamp(first, tz=timezone.utc).date().isoformat()}"


def _too_costly(table: RequestTable, too_costly: np.ndarray) -> tuple[int, list[dict]]:
    """How many requests were priced out of range, and their entry of the rejected list
    (the first by time named by its session, as no ledger line is known by then)."""
    found = np.flatnonzero(too_costly)
    if not len(found):
        return 0, []
    times = column(table.time)[found]
    first = int(found[np.argmin(times)])
    session = cut_middle(one_line(table.names[int(column(table.session)[first])]), 60)
    when = datetime.fromtimestamp(float(times.min()), tz=timezone.utc)
    where = f"session {session}, {when:%Y-%m-%dT%H:%M:%SZ}"
    return len(found), [{"reason": PRICED_COST_TOO_LARGE, "rows": len(found), "first": where}]
