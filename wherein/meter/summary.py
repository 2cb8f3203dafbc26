"""The baseline figures: requests, cost, cache hit rate, context per request, recall groups.

Context of a request = input + cache read + cache write tokens: what the model had to read.
Two averages are reported because they answer different questions. The pooled average counts
every request once, so a long session with hundreds of large requests dominates it; the
typical average is the mean of each session's own average, so every session counts once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from wherein.meter.ledgers import Ledger
from wherein.meter.prices import TOKENS_PER_UNIT, PriceBook
from wherein.meter.usage import SEARCH_ACTION, UsageRow

__all__ = [
    "CHARS_PER_TOKEN",
    "COST_PARTS",
    "Filters",
    "day_costs",
    "recall_session_names",
    "summarize",
]

SECONDS_PER_DAY = 86_400
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
    totals = _Pass(ledger, prices, filters, one_hour_as_5m)
    totals.run()
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
        "rejected_rows": ledger.stats.rejected,
        "rejected": ledger.stats.rejected_list(),
        "unpriced_models": [
            {"model": model, "requests": n, "tokens": t, "reason": _why_unpriced(prices, model)}
            for model, (n, t) in sorted(totals.unpriced.items())
        ],
        "unpriced_requests": sum(n for n, _ in totals.unpriced.values()),
        "stored_cost_requests": totals.stored_requests,
        "recall_used": bool(groups[RECALL].sessions),
        "groups": {name: tally.as_dict() for name, tally in groups.items()},
        "tokens": tokens,
        "cost_split_usd": totals.split,
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
    daily = _DailyPass(ledger, prices, filters, one_hour_as_5m)
    daily.run()
    if not daily.by_day:
        return []
    empty = dict.fromkeys(COST_PARTS, 0.0)
    return [
        {"date": _date(day), **daily.by_day.get(day, empty)}
        for day in range(min(daily.by_day), max(daily.by_day) + 1)
    ]


def _recall_rows(usage_rows: Sequence[UsageRow], filters: Filters) -> list[UsageRow]:
    return [
        row for row in usage_rows if row.action == SEARCH_ACTION and filters.admits_time(row.time)
    ]


class _Pass:
    """One pass over the table: filters, prices and sums every request."""

    def __init__(self, ledger: Ledger, prices: PriceBook, filters: Filters, one_hour_as_5m: bool):
        self.table = ledger.table
        self.prices = prices
        self.filters = filters
        self.one_hour_as_5m = one_hour_as_5m
        self.tokens = dict.fromkeys(TOKEN_KINDS, 0)
        self.split = dict.fromkeys(COST_PARTS, 0.0)
        self.tiers = dict.fromkeys(TIERS, 0)
        self.unpriced: dict[str, list[int]] = {}  # model -> [requests, tokens]
        self.sessions: dict[int, list[float]] = {}  # session id -> [requests, context, cost]
        self.days: dict[int, list[float]] = {}  # UTC day number -> [requests, cost]
        self.stored_requests = 0
        self._project_match: dict[int, bool] = {}

    def run(self) -> None:
        """Sum every request the filters admit."""
        table = self.table
        for i in range(len(table)):
            when = table.time[i]
            if self.filters.admits_time(when) and self._admits_project(table.project[i]):
                self._add(i, when)

    def _admits_project(self, project_id: int) -> bool:
        wanted = self.filters.project
        if wanted is None:
            return True
        matched = self._project_match.get(project_id)
        if matched is None:
            matched = self._project_match[project_id] = wanted in self.table.names[project_id]
        return matched

    def _add(self, i: int, when: float) -> None:
        table = self.table
        fresh, read = table.input[i], table.cache_read[i]
        write_5m, write_1h = table.cache_write_5m[i], table.cache_write_1h[i]
        output = table.output[i]
        context = fresh + read + write_5m + write_1h
        tokens = self.tokens
        tokens["input"] += fresh
        tokens["cache_read"] += read
        tokens["cache_write_5m"] += write_5m
        tokens["cache_write_1h"] += write_1h
        tokens["output"] += output
        cost = table.stored_cost[i]
        if not math.isnan(cost):
            self.stored_requests += 1
            self.split["stored"] += cost
        else:
            cost = self._price(table.names[table.model[i]], when, context, i)
        session = self.sessions.setdefault(table.session[i], [0, 0, 0.0])
        session[0] += 1
        session[1] += context
        session[2] += cost
        day = self.days.setdefault(int(when // SECONDS_PER_DAY), [0, 0.0])
        day[0] += 1
        day[1] += cost

    def _price(self, model: str, when: float, context: int, i: int) -> float:
        """Price row `i` from the table; 0 (and noted as unpriced) for an unknown model."""
        table = self.table
        row = self.prices.lookup(model, when)
        if row is None:
            entry = self.unpriced.setdefault(model, [0, 0])
            entry[0] += 1
            entry[1] += context + table.output[i]
            return 0.0
        rates, tier = row.rates_at(when, context)
        self.tiers[tier] += 1
        one_hour = rates.cache_write_5m if self.one_hour_as_5m else rates.cache_write_1h
        read = table.cache_read[i] * rates.cache_read / TOKENS_PER_UNIT
        fresh = table.input[i] * rates.input / TOKENS_PER_UNIT
        writes = table.cache_write_5m[i] * rates.cache_write_5m + table.cache_write_1h[i] * one_hour
        writes /= TOKENS_PER_UNIT
        output = table.output[i] * rates.output / TOKENS_PER_UNIT
        split = self.split
        split["cache_read"] += read
        split["input"] += fresh
        split["cache_write"] += writes
        split["output"] += output
        return read + fresh + writes + output


class _DailyPass(_Pass):
    """A pass that keeps the cost split per UTC day: before each request, `split` is pointed
    at that day's own dict, so the pricing code fills it unchanged."""

    def __init__(self, ledger: Ledger, prices: PriceBook, filters: Filters, one_hour_as_5m: bool):
        super().__init__(ledger, prices, filters, one_hour_as_5m)
        self.by_day: dict[int, dict[str, float]] = {}

    def _add(self, i: int, when: float) -> None:
        day = int(when // SECONDS_PER_DAY)
        split = self.by_day.get(day)
        if split is None:
            split = self.by_day[day] = dict.fromkeys(COST_PARTS, 0.0)
        self.split = split
        super()._add(i, when)


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


def _why_unpriced(prices: PriceBook, model: str) -> str:
    rows = prices.candidates(model)
    if not rows:
        return "not in the price table"
    first = min(r.effective_from for r in rows if r.effective_from is not None)
    return f"no price before {datetime.fromtimestamp(first, tz=timezone.utc).date().isoformat()}"
