"""scripts/make_transcripts.py: history reads back exactly the messages the generator wrote."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.helpers import HashingEmbedder
from wherein.history.refresh import index_history
from wherein.history.transcripts import find_transcripts, read_conversation

REPO = Path(__file__).resolve().parents[2]


def _generator():
    path = REPO / "scripts/make_transcripts.py"
    spec = importlib.util.spec_from_file_location("make_transcripts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_generated_corpus_reads_back_to_the_generators_counts(tmp_path, monkeypatch):
    generator = _generator()
    out = tmp_path / "corpus"
    assert generator.main([str(out), "--conversations", "40", "--seed", "3"]) == 0
    expected = json.loads((out / "expected.json").read_text())
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(out / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(out / "codex"))
    conversations = [read_conversation(t) for t in find_transcripts()]
    assert len(conversations) == expected["conversations"] == 40
    assert sum(len(c.messages) for c in conversations) == expected["messages"]
    for source, counts in expected["by_source"].items():
        mine = [c for c in conversations if c.source == source]
        assert (len(mine), sum(len(c.messages) for c in mine)) == (
            counts["conversations"],
            counts["messages"],
        )
    (planted,) = [c for c in conversations if c.session == expected["planted"]["conversation"]]
    assert [m.text for m in planted.messages] == [t for _, t in generator.PLANTED_TURNS]
    assert generator.planted_overlap() == []

    summary = index_history(embedder=HashingEmbedder())
    assert (summary.conversations, summary.messages) == (40, expected["messages"])
    assert generator.main([str(out), "--grow", "5", "--seed", "8"]) == 0
    grown = json.loads((out / "expected.json").read_text())
    again = index_history(embedder=HashingEmbedder())
    assert again.read == 5 and again.messages == grown["messages"] == expected["messages"] + 10
