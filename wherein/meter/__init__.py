"""The cost meter: read an agent's own ledgers and report what its sessions cost."""

from wherein.meter.baseline import build_baseline, parse_day
from wherein.meter.ledgers import Ledger, LedgerMissing, LedgerSet, find_ledgers, read_ledgers
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
