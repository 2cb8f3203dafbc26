"""The cost meter: read an agent's own ledgers and report what its sessions cost.

Members are imported on first use: `wherein statusline` reads one session through
`wherein.meter.statusline` on every refresh of the agent's status bar, and must not load
numpy (the summary's) to do it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.meter.baseline import build_baseline, parse_day
    from wherein.meter.ledgers import (
        Ledger,
        LedgerMissing,
        LedgerSet,
        find_ledgers,
        read_ledgers,
    )
    from wherein.meter.prices import PriceBook, PriceRow, Rates, load_prices
    from wherein.meter.report import format_report
    from wherein.meter.summary import Filters, summarize
    from wherein.meter.table import Request, RequestTable
    from wherein.meter.usage import UsageRow, read_usage

__all__ = [
    "Filters",
    "Ledger",
    "LedgerMissing",
    "LedgerSet",
    "PriceBook",
    "PriceRow",
    "Rates",
    "Request",
    "RequestTable",
    "UsageRow",
    "build_baseline",
    "find_ledgers",
    "format_report",
    "load_prices",
    "parse_day",
    "read_ledgers",
    "read_usage",
    "summarize",
]

_MODULE_OF = {
    "Filters": "summary",
    "Ledger": "ledgers",
    "LedgerMissing": "ledgers",
    "LedgerSet": "ledgers",
    "PriceBook": "prices",
    "PriceRow": "prices",
    "Rates": "prices",
    "Request": "table",
    "RequestTable": "table",
    "UsageRow": "usage",
    "build_baseline": "baseline",
    "find_ledgers": "ledgers",
    "format_report": "report",
    "load_prices": "prices",
    "parse_day": "baseline",
    "read_ledgers": "ledgers",
    "read_usage": "usage",
    "summarize": "summary",
}

__getattr__, __dir__ = lazy_members(__name__, _MODULE_OF)
del TYPE_CHECKING, annotations, lazy_members  # the package lists its members and nothing else
