"""The price table: dated per-model rates shipped as data, overridable by the user's own file.

A model the table does not name is unpriced and reported as such; it is never priced as a
neighbour (claude-opus-4 must not price claude-opus-4-5), so matching is exact, after removing
a trailing `-YYYYMMDD` snapshot date, or through a row's explicit `aliases`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from wherein.errors import ConfigError
from wherein.meter.bounds import MAX_RATE_USD, OutOfRange, check_time
from wherein.toml_text import TomlError, loads

__all__ = [
    "PriceBook",
    "PriceRow",
    "Rates",
    "load_prices",
    "parse_price_table",
    "user_prices_path",
]

PACKAGE_TABLE = "prices.toml"
USER_FILE_NAME = "prices.toml"
TOKENS_PER_UNIT = 1_000_000  # rates are quoted per million tokens
RATE_KEYS = ("input", "cache_write_5m", "cache_write_1h", "cache_read", "output")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
SNAPSHOT_SUFFIX = re.compile(r"-\d{8}$")  # claude-sonnet-4-5-20250929 -> claude-sonnet-4-5
MINUTES_PER_DAY = 24 * 60
YEARS = "2000 .. 2099"  # bounds.check_time's range


class Rates(NamedTuple):
    """USD per million tokens for each kind of token a request is billed for.

    NamedTuples rather than frozen dataclasses, here and for PriceRow: `wherein statusline`
    prices a response on most refreshes, and importing dataclasses took it longer than
    pricing.
    """

    input: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float
    output: float

    def cost(
        self, input: int, cache_write_5m: int, cache_write_1h: int, cache_read: int, output: int
    ) -> float:
        """USD for one request's tokens at these rates."""
        return (
            input * self.input
            + cache_write_5m * self.cache_write_5m
            + cache_write_1h * self.cache_write_1h
            + cache_read * self.cache_read
            + output * self.output
        ) / TOKENS_PER_UNIT


class PriceRow(NamedTuple):
    """One dated row of the table for one model, with its optional tiers and its source."""

    model: str
    aliases: tuple[str, ...]
    effective_from: float | None  # epoch seconds UTC; None: from the beginning
    rates: Rates
    long_threshold: int | None
    long_rates: Rates | None
    peak_windows: tuple[tuple[int, int], ...]  # minutes of the UTC day, [start, end)
    peak_weekdays: frozenset[int]  # Monday is 0, as datetime.weekday()
    off_peak_rates: Rates | None
    source: str
    taken: str
    origin: str  # the file the row came from

    def rates_at(self, when: float, prompt_tokens: int) -> tuple[Rates, str]:
        """The rates for a request at `when` with this prompt size, and the tier's name."""
        long_rates, threshold = self.long_rates, self.long_threshold
        if long_rates is not None and threshold is not None and prompt_tokens > threshold:
            return long_rates, "long_context"
        if self.off_peak_rates is not None and not self._is_peak(when):
            return self.off_peak_rates, "off_peak"
        return self.rates, "standard"

    def _is_peak(self, when: float) -> bool:
        moment = datetime.fromtimestamp(when, tz=timezone.utc)
        if moment.weekday() not in self.peak_weekdays:
            return False
        minute = moment.hour * 60 + moment.minute
        return any(start <= minute < end for start, end in self.peak_windows)


class PriceBook:
    """Looks up the row in force for a model at a moment; remembers what it could not price."""

    def __init__(self, rows: list[PriceRow], origins: list[str]) -> None:
        self.rows = rows
        self.origins = origins
        self._by_name: dict[str, list[PriceRow]] = {}
        for row in rows:
            for name in (row.model, *row.aliases):
                self._by_name.setdefault(name, []).append(row)
        for candidates in self._by_name.values():
            candidates.sort(key=lambda r: -1e18 if r.effective_from is None else r.effective_from)
        self._resolved: dict[str, list[PriceRow] | None] = {}

    def candidates(self, model: str) -> list[PriceRow] | None:
        """Every row for `model` (oldest first), or None when the table does not name it."""
        if model in self._resolved:
            return self._resolved[model]
        found = self._by_name.get(model)
        if found is None:
            found = self._by_name.get(SNAPSHOT_SUFFIX.sub("", model))
        self._resolved[model] = found
        return found

    def lookup(self, model: str, when: float) -> PriceRow | None:
        """The row in force at `when`; None if the model is unknown or `when` predates its rows."""
        rows = self.candidates(model)
        if not rows:
            return None
        chosen = None
        for row in rows:
            if row.effective_from is None or row.effective_from <= when:
                chosen = row
        return chosen


def user_prices_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/wherein/prices.toml`, defaulting to `~/.config`."""
    from wherein.storage.paths import xdg_base

    return xdg_base("XDG_CONFIG_HOME", ".config", environ) / "wherein" / USER_FILE_NAME


def load_prices(environ: Mapping[str, str] | None = None) -> PriceBook:
    """The shipped table, with every model the user's file names replaced by the user's rows.

    Raises:
        ConfigError: the user's file does not parse or a row is incomplete.
    """
    shipped_text = _shipped_table()
    rows = parse_price_table(shipped_text, f"wherein/meter/{PACKAGE_TABLE}")
    origins = [f"wherein/meter/{PACKAGE_TABLE}"]
    user_path = user_prices_path(environ)
    if user_path.is_file():
        try:
            user_text = user_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(
                f"Cannot read the price file {user_path}: {err}. Fix or remove it."
            ) from err
        user_rows = parse_price_table(user_text, str(user_path))
        replaced = {row.model for row in user_rows}
        rows = [row for row in rows if row.model not in replaced] + user_rows
        origins.append(str(user_path))
    return PriceBook(rows, origins)


def _shipped_table() -> str:
    """The shipped table's text: the file beside this module, where an install puts it, else
    through importlib.resources (a zipped package), which takes 10 ms to import."""
    beside = Path(__file__).with_name(PACKAGE_TABLE)
    if beside.is_file():
        return beside.read_text(encoding="utf-8")
    from importlib import resources  # pragma: no cover - a zipped install

    return resources.files("wherein.meter").joinpath(PACKAGE_TABLE).read_text("utf-8")


def parse_price_table(text: str, origin: str) -> list[PriceRow]:
    """Parse a price table in the format documented at the top of the shipped `prices.toml`."""
    try:
        document = loads(text)
    except TomlError as err:
        raise ConfigError(
            f"The price file {origin} is not valid TOML: {err}. Fix the line it names."
        ) from err
    entries = document.get("price", [])
    if not isinstance(entries, list):
        kind = type(entries).__name__
        raise ConfigError(f"The price file {origin} has 'price' as a {kind}; use [[price]] rows.")
    return [_parse_row(entry, origin, number) for number, entry in enumerate(entries, start=1)]


def _parse_row(entry: Any, origin: str, number: int) -> PriceRow:
    where = f"row {number} of {origin}"
    if not isinstance(entry, dict):
        raise ConfigError(f"The price {where} is not a table; write it as [[price]].")
    model = entry.get("model")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"The price {where} has no 'model'; name the model id it prices.")
    where = f"row {number} ({model}) of {origin}"
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise _bad(where, "aliases", aliases, "use a list of model names.")
    long_threshold = long_rates = None
    if "long_context" in entry:
        tier = entry["long_context"]
        threshold = tier.get("threshold") if isinstance(tier, dict) else None
        if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 1:
            raise _bad(where, "long_context.threshold", threshold, "give prompt tokens (> 0).")
        long_threshold, long_rates = threshold, _parse_rates(tier, f"{where}, long_context")
    windows: tuple[tuple[int, int], ...] = ()
    weekdays: frozenset[int] = frozenset()
    off_peak_rates = None
    if "off_peak" in entry:
        tier = entry["off_peak"]
        if not isinstance(tier, dict):
            raise _bad(where, "off_peak", tier, "write it as a [price.off_peak] sub-table.")
        windows = _parse_windows(tier.get("peak_utc"), where)
        weekdays = _parse_weekdays(tier.get("peak_weekdays", list(WEEKDAYS)), where)
        off_peak_rates = _parse_rates(tier, f"{where}, off_peak")
    return PriceRow(
        model=model,
        aliases=tuple(aliases),
        effective_from=_parse_effective(entry.get("effective_from"), where),
        rates=_parse_rates(entry, where),
        long_threshold=long_threshold,
        long_rates=long_rates,
        peak_windows=windows,
        peak_weekdays=weekdays,
        off_peak_rates=off_peak_rates,
        source=str(entry.get("source", "")),
        taken=str(entry.get("taken", "")),
        origin=origin,
    )


def _parse_rates(table: dict, where: str) -> Rates:
    values = {}
    for key in RATE_KEYS:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _bad(where, key, value, "give USD per million tokens (a number, 0 or more).")
        if not 0 <= value < MAX_RATE_USD:  # also refuses NaN and the infinities
            raise _bad(where, key, value, f"give USD per million tokens, 0 to {MAX_RATE_USD:,}.")
        values[key] = float(value)
    return Rates(**values)


def _parse_effective(value: Any, where: str) -> float | None:
    if value is None:
        return None
    text = value.isoformat() if hasattr(value, "isoformat") else value
    if not isinstance(text, str):
        raise _bad(where, "effective_from", value, "use a date.")
    try:
        when = check_time(text)
    except OutOfRange as err:
        raise _bad(where, "effective_from", text, f"use a date in {YEARS}.") from err
    if when is None:
        raise _bad(where, "effective_from", text, "use 2026-08-16 or 2026-08-16T16:00:00Z.")
    return when


def _parse_windows(value: Any, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not value:
        raise _bad(where, "off_peak.peak_utc", value, 'list UTC windows as "HH:MM-HH:MM".')
    windows = []
    for item in value:
        match = re.fullmatch(r"(\d{2}):(\d{2})-(\d{2}):(\d{2})", str(item))
        if not match:
            raise _bad(where, "a peak window", item, "write HH:MM-HH:MM.")
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        start, end = h1 * 60 + m1, h2 * 60 + m2
        if not (0 <= start < end <= MINUTES_PER_DAY) or m1 > 59 or m2 > 59:
            raise _bad(where, "a peak window", item, "start before end, within one UTC day.")
        windows.append((start, end))
    return tuple(windows)


def _parse_weekdays(value: Any, where: str) -> frozenset[int]:
    if not isinstance(value, list) or not all(v in WEEKDAYS for v in value):
        raise _bad(where, "off_peak.peak_weekdays", value, f"use {', '.join(WEEKDAYS)}.")
    return frozenset(WEEKDAYS.index(v) for v in value)


def _bad(where: str, key: str, value: Any, hint: str) -> ConfigError:
    return ConfigError(f"The price {where} has {key} = {value!r}; {hint}")
