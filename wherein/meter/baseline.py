"""`wherein baseline` end to end: find and read the ledgers, join recall usage, price, sum."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, time, timedelta, timezone
from pathlib import Path

from wherein.errors import UsageError
from wherein.meter.breakdown import BY_CHOICES, breakdowns
from wherein.meter.claude import DEDUPE_LARGEST
from wherein.meter.jsonl import ReadStats
from wherein.meter.ledgers import find_ledgers, read_ledgers
from wherein.meter.parsecache import ParseCache, cache_path
from wherein.meter.prices import load_prices, user_prices_path
from wherein.meter.steps import bucket_steps, count_steps
from wherein.meter.summary import Filters, day_costs, recall_session_names, summarize
from wherein.meter.usage import read_usage, usage_path

__all__ = ["build_baseline", "parse_day"]


def parse_day(text: str | None, *, end: bool = False) -> float | None:
    """Epoch seconds for `--since`/`--until`: a date (YYYY-MM-DD, UTC) or an ISO time.

    With `end`, a bare date means the end of that day, so `--until 2026-11-01` includes it.

    Raises:
        UsageError: the text is neither a date nor an ISO time.
    """
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as err:
        flag = "--until" if end else "--since"
        raise UsageError(f"{flag} {text!r} is not a date: use YYYY-MM-DD or an ISO time.") from err
    bare_date = len(text.strip()) == len("YYYY-MM-DD")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    if end and bare_date:
        moment = datetime.combine(moment.date(), time(0), tzinfo=timezone.utc) + timedelta(days=1)
    return moment.timestamp()


def build_baseline(
    ledgers: Iterable[Path] = (),
    *,
    since: str | None = None,
    until: str | None = None,
    project: str | None = None,
    environ: Mapping[str, str] | None = None,
    dedupe: str = DEDUPE_LARGEST,
    one_hour_as_5m: bool = False,
    with_days: bool = False,
    cache: bool = True,
    workers: int | None = None,
    by: str | None = None,
) -> dict:
    """The baseline report as a dict (see `summarize`), from this user's ledgers or `ledgers`.

    It adds `context_by_step` (see `bucket_steps`) and, `with_days`, `cost_by_day` (see
    `day_costs`): a second pricing pass, so only the HTML report asks for it. With `cache`,
    each file's results are kept in `<data home>/meter-cache.sqlite` and a file unchanged
    since is not read again; `workers` as `read_ledgers`. `by` (one of `BY_CHOICES`) adds
    `breakdowns[by]` (see `breakdowns`); `with_days` adds every grouping, for the page.

    Raises:
        UsageError: a bad date, or a `--ledger` file that does not exist.
        LedgerMissing: no ledger to read.
        ConfigError: the user's price file is malformed.
    """
    filters = Filters(
        since=parse_day(since), until=parse_day(until, end=True), project=project or None
    )
    if by is not None and by not in BY_CHOICES:
        raise UsageError(f"--by {by!r} is not a grouping: choose from {', '.join(BY_CHOICES)}.")
    if filters.since is not None and filters.until is not None and filters.since >= filters.until:
        raise UsageError(f"--since {since} is not before --until {until}: swap or widen them.")
    prices = load_prices(environ)
    store = ParseCache(cache_path(environ)) if cache else None
    ledger = read_ledgers(
        find_ledgers(ledgers, environ), dedupe=dedupe, cache=store, workers=workers
    )
    usage_stats = ReadStats()
    usage = read_usage(usage_path(environ), usage_stats)
    summary = summarize(ledger, usage, prices, filters, one_hour_as_5m=one_hour_as_5m)
    recall_names = recall_session_names(ledger, usage, filters)
    summary["context_by_step"] = bucket_steps(count_steps(ledger, recall_names, filters))
    if with_days:
        summary["cost_by_day"] = day_costs(ledger, prices, filters, one_hour_as_5m=one_hour_as_5m)
    groupings = BY_CHOICES if with_days else (by,) if by else ()
    if groupings:
        summary["breakdowns"] = breakdowns(
            ledger, prices, filters, recall_names, groupings, one_hour_as_5m=one_hour_as_5m
        )
    summary["usage_rows_malformed"] = usage_stats.malformed
    summary["usage_rows_rejected"] = usage_stats.rejected
    summary["usage_rejected"] = usage_stats.rejected_list()
    summary["sources"]["unreadable"] += usage_stats.unreadable
    summary["sources"]["files_from_cache"] = ledger.files_from_cache
    summary["sources"]["cache_problem"] = ledger.cache_problem
    summary["filters"] = {"since": since, "until": until, "project": project}
    summary["by"] = by
    summary["rules"]["user_price_file"] = str(user_prices_path(environ))
    return summary
