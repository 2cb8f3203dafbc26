"""The price table: exact model matching, dated rows, tiers, and the user's override file."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from wherein.errors import ConfigError
from wherein.meter.prices import RATE_KEYS, load_prices, parse_price_table, user_prices_path


def _at(*parts: int) -> float:
    return datetime(*parts, tzinfo=timezone.utc).timestamp()


NOW = _at(2026, 11, 29)


def test_every_shipped_row_names_its_source_and_the_date_taken():
    book = load_prices()
    assert book.rows
    for row in book.rows:
        assert row.source.startswith("https://"), row.model
        assert row.taken == "2026-11-29", row.model


def test_a_snapshot_id_prices_as_its_base_model_and_never_as_a_neighbour():
    book = load_prices()
    assert book.lookup("claude-opus-4-5-20251101", NOW).rates.input == 5.0
    assert book.lookup("claude-opus-4-20250514", NOW).rates.input == 15.0
    assert book.lookup("claude-opus-4-0", NOW).rates.input == 15.0
    assert book.lookup("claude-opus-4-9", NOW) is None
    assert book.lookup("claude-opus", NOW) is None
    assert book.lookup("gpt-5-codex-mini", NOW) is None


def test_one_hour_cache_writes_cost_twice_the_input_rate_on_anthropic_models():
    book = load_prices()
    for row in book.rows:
        if row.model.startswith("claude-"):
            assert row.rates.cache_write_1h == pytest.approx(2 * row.rates.input), row.model


def test_dated_rows_apply_from_their_date_and_nothing_applies_before_the_first():
    book = load_prices()
    assert book.lookup("deepseek-chat", _at(2026, 1, 1)) is None
    assert book.lookup("deepseek-chat", _at(2026, 4, 25)).rates.cache_read == 0.028
    assert book.lookup("deepseek-chat", _at(2026, 4, 26, 12, 15)).rates.cache_read == 0.0028
    assert book.lookup("claude-sonnet-5-5", _at(2026, 10, 6)).rates.cache_read == 0.2
    assert book.lookup("claude-sonnet-5-5", _at(2026, 10, 7)).rates.cache_read == 0.1


def test_deepseek_peak_and_off_peak_are_chosen_by_the_request_timestamp():
    book = load_prices()
    row = book.lookup("deepseek-v4-pro", NOW)
    tuesday_peak = _at(2026, 11, 24, 7, 30)
    tuesday_gap = _at(2026, 11, 24, 4, 30)  # between the two peak windows
    saturday = _at(2026, 11, 28, 7, 30)
    assert row.rates_at(tuesday_peak, 1000) == (row.rates, "standard")
    assert row.rates_at(tuesday_gap, 1000)[0].output == 1.98
    assert row.rates_at(saturday, 1000)[1] == "off_peak"
    assert row.rates_at(_at(2026, 11, 24, 10, 0), 1000)[1] == "off_peak"  # windows end-exclusive


def test_long_context_rates_apply_above_the_threshold_only():
    row = load_prices().lookup("claude-sonnet-4-5", NOW)
    assert row.rates_at(NOW, 200_000) == (row.rates, "standard")
    rates, tier = row.rates_at(NOW, 200_001)
    assert (tier, rates.input, rates.output) == ("long_context", 6.0, 22.5)


def test_the_user_file_replaces_every_shipped_row_of_the_models_it_names(tmp_path):
    path = user_prices_path()
    assert path == tmp_path / "config" / "wherein" / "prices.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        '[[price]]\nmodel = "claude-opus-4-5"\ninput = 1.0\ncache_write_5m = 1.0\n'
        'cache_write_1h = 1.0\ncache_read = 1.0\noutput = 1.0\nsource = "my contract"\n'
        '[[price]]\nmodel = "my-local-model"\ninput = 0\ncache_write_5m = 0\n'
        "cache_write_1h = 0\ncache_read = 0\noutput = 0\n",
        encoding="utf-8",
    )
    book = load_prices()
    assert book.lookup("claude-opus-4-5-20251101", NOW).rates.output == 1.0
    assert book.lookup("my-local-model", NOW).rates.output == 0.0
    assert book.lookup("claude-opus-4-6", NOW).rates.output == 25.0
    assert book.origins[-1] == str(path)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[[price]]\nmodel = 'x'\ninput = 1\n", "cache_write_5m"),
        ("[[price]]\ninput = 1\n", "no 'model'"),
        (
            "[[price]]\nmodel = 'x'\n"
            + "".join(f"{k} = 1\n" for k in RATE_KEYS)
            + "effective_from = 'soon'\n",
            "effective_from",
        ),
        (
            "[[price]]\nmodel = 'x'\n"
            + "".join(f"{k} = 1\n" for k in RATE_KEYS)
            + "[price.off_peak]\npeak_utc = ['25:00-26:00']\n",
            "peak window",
        ),
        ("price = [", "not valid TOML"),
    ],
)
def test_a_bad_price_file_is_an_error_naming_the_row_and_key(text, named):
    with pytest.raises(ConfigError, match="mine.toml") as caught:
        parse_price_table(text, "mine.toml")
    assert named in str(caught.value)


@pytest.mark.parametrize("value", ["inf", "nan", "1e300", "-inf"])
def test_a_rate_that_is_not_a_finite_number_in_range_is_refused(value):
    path = user_prices_path()
    path.parent.mkdir(parents=True)
    rates = "".join(f"{key} = 1\n" for key in RATE_KEYS if key != "input")
    path.write_text(f'[[price]]\nmodel = "m"\ninput = {value}\n{rates}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"row 1 \(m\) of .*prices\.toml has input = "):
        load_prices()


def test_an_effective_date_that_is_no_real_day_in_utc_is_refused():
    rates = "".join(f"{key} = 1\n" for key in RATE_KEYS)
    text = f"[[price]]\nmodel = 'x'\n{rates}effective_from = 0001-01-01T00:00:00+14:00\n"
    with pytest.raises(ConfigError, match="effective_from"):
        parse_price_table(text, "mine.toml")
