"""scripts/make_ledger.py: reading what it writes reproduces the totals it drew."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from wherein.meter import build_baseline

REPO = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("make_ledger", REPO / "scripts/make_ledger.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("form", ["claude", "generic"])
def test_a_generated_ledger_reads_back_to_the_generators_totals(form, tmp_path, monkeypatch):
    out = tmp_path / "ledger"
    argv = [
        str(out),
        "--sessions",
        "8",
        "--seed",
        "5",
        "--recall-share",
        "0.4",
        "--malformed-rate",
        "0.02",
        "--format",
        form,
    ]
    assert _generator().main(argv) == 0
    expected = json.loads((out / "expected.json").read_text())
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(out))
    monkeypatch.setenv("WHEREIN_HOME", str(out))
    ledgers = [out / "ledger.jsonl"] if form == "generic" else []
    summary = build_baseline(ledgers)
    assert summary["requests"] == expected["requests"]
    assert summary["sessions"] == expected["sessions"]
    assert summary["tokens"] == expected["tokens"]
    assert summary["malformed_lines"] == expected["malformed_lines"]
    assert summary["groups"]["recall"]["sessions"] == expected["recall_sessions"]
    assert summary["unpriced_models"] == []


def test_the_generator_refuses_to_write_over_a_ledger(tmp_path, capsys):
    generator = _generator()
    assert generator.main([str(tmp_path), "--sessions", "1"]) == 0
    assert generator.main([str(tmp_path), "--sessions", "1"]) == 2
    assert "already holds a ledger" in capsys.readouterr().err
