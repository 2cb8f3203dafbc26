"""scripts/bench_swap.py: the old function stands in at every binding, and is put back."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from wherein.ranking import quantized_rows
from wherein.retrieval import selection

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))  # it imports bench_warm and measure
    spec = importlib.util.spec_from_file_location("bench_swap", SCRIPTS / "bench_swap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_binding_is_swapped_and_put_back_even_after_an_error(bench):
    current = selection.at_or_above_floor

    def stand_in(scores, k):
        return scores[:k]

    with pytest.raises(RuntimeError), bench.swapped(current, stand_in):
        # The defining module's binding and an importer's (`from ... import`) alike.
        assert selection.at_or_above_floor is stand_in
        assert quantized_rows.at_or_above_floor is stand_in
        raise RuntimeError("a search failed")
    assert selection.at_or_above_floor is current
    assert quantized_rows.at_or_above_floor is current


def test_the_old_function_is_run_from_its_source_beside_todays_package(bench):
    source = (
        "from wherein.retrieval.selection import TIES_BEFORE_SPLIT\n"
        "def at_or_above_floor(scores, k):\n"
        "    return k * TIES_BEFORE_SPLIT\n"
    )
    old = bench.old_function("wherein.retrieval.selection", "at_or_above_floor", source)
    assert old is not selection.at_or_above_floor
    assert old([], 2) == 2 * selection.TIES_BEFORE_SPLIT
    assert bench.bindings_of(old) == []  # not a module of the package


def test_an_old_module_defining_a_dataclass_runs(bench):
    source = (
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\n"
        "class Query:\n"
        "    text: str\n"
        "def rank(text):\n"
        "    return Query(text).text\n"
    )
    old = bench.old_function("wherein.ranking.signals", "rank", source)
    assert old("retry") == "retry"
    assert "wherein.ranking.signals__old" not in sys.modules  # registered only while it ran
