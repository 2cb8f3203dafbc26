"""The ranges a ledger's numbers must fall in; a row outside them is rejected with the reason.

A ledger is data anyone can write (a harness bug, a generated file, a transcript copied from
elsewhere), and one absurd number must not turn a total into `inf`, a negative count or a
traceback. The ceilings are far above any real request, so nothing real is rejected:

- a token count (or a recall row's character count) below 10**12, a million times the largest
  context window: every total then stays an exact int;
- a stored cost below $10,000 for one request, a hundred times the dearest request today,
  and so a computed one (`pricing.py`): token counts below 10**12 priced at the table's rates
  reach millions of dollars for one request;
- a time that converts to UTC within 2000-01-01 .. 2099-12-31, so every day of the report is a
  real date and the daily chart spans at most a century;
- a price below $10,000 per million tokens, finite (checked in `prices.py`).

Each rule has one reason string; the report counts rejected rows by it.
"""

from __future__ import annotations

import math
import sys
from datetime import datetime, timezone
from typing import Any

__all__ = [
    "COST_NOT_FINITE",
    "COST_TOO_LARGE",
    "COUNT_TOO_LARGE",
    "EARLIEST",
    "LATEST",
    "MAX_COST_USD",
    "MAX_COUNT",
    "MAX_RATE_USD",
    "NEGATIVE_COST",
    "NEGATIVE_COUNT",
    "PRICED_COST_TOO_LARGE",
    "TIME_OUT_OF_RANGE",
    "OutOfRange",
    "check_cost",
    "check_count",
    "check_time",
]

MAX_COUNT = 10**12
MAX_COST_USD = 10_000
MAX_RATE_USD = 10_000  # per million tokens
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc).timestamp()
LATEST = datetime(2100, 1, 1, tzinfo=timezone.utc).timestamp()

NEGATIVE_COUNT = "a negative count"
COUNT_TOO_LARGE = "a count of 10^12 or more"
COST_NOT_FINITE = "a cost that is not a finite number"
NEGATIVE_COST = "a negative cost"
COST_TOO_LARGE = "a cost of $10,000 or more for one request"
PRICED_COST_TOO_LARGE = "a priced cost of $10,000 or more for one request"
TIME_OUT_OF_RANGE = "a time outside 2000-01-01 .. 2099-12-31 UTC"


def _from_iso_z(value: str) -> datetime:
    """Python 3.10's `fromisoformat` reads no 'Z'; 3.11 reads it (and is used directly)."""
    return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)


_from_iso = datetime.fromisoformat if sys.version_info >= (3, 11) else _from_iso_z


class OutOfRange(ValueError):
    """A value of the right type outside its range; `reason` is the rule it breaks."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def check_count(value: Any) -> bool:
    """True for a count in range; False when it is not an integer at all (a malformed row).

    Raises:
        OutOfRange: an integer below 0, or 10**12 or more.
    """
    if type(value) is not int:  # JSON true and false are bools, not counts
        return False
    if value < 0:
        raise OutOfRange(NEGATIVE_COUNT)
    if value >= MAX_COUNT:
        raise OutOfRange(COUNT_TOO_LARGE)
    return True


def check_cost(value: Any) -> bool:
    """True for a stored cost in range; False when it is not a number.

    Raises:
        OutOfRange: NaN or an infinity (JSON `NaN`, `Infinity`, `1e999`), below 0, or $10,000
            or more.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        raise OutOfRange(COST_NOT_FINITE)
    if value < 0:
        raise OutOfRange(NEGATIVE_COST)
    if value >= MAX_COST_USD:
        raise OutOfRange(COST_TOO_LARGE)
    return True


def check_time(value: Any) -> float | None:
    """Epoch seconds from an ISO-8601 string ('Z' or an offset; naive means UTC); None when it
    is not such a string.

    Raises:
        OutOfRange: a time that is not within 2000-01-01 .. 2099-12-31 once converted to UTC
            (`0001-01-01T00:00:00+14:00` is a valid string but a day before year 1).
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = _from_iso(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    when = moment.timestamp()  # exact arithmetic on the offset: never raises for a parsed time
    if not EARLIEST <= when < LATEST:
        raise OutOfRange(TIME_OUT_OF_RANGE)
    return when
