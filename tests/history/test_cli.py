"""`wherein history index|search` through the real command, with the default in-process model."""

from __future__ import annotations

import json

from tests.history.builders import claude_conversation, codex_line, codex_message, write_lines
from wherein.cli import main


def _corpus(homes) -> None:
    write_lines(homes["projects"] / "paging.jsonl", claude_conversation("paging", [
        ("user", "How should the orders endpoint page its results?"),
        ("assistant", "Keyset pagination with an opaque cursor; fifty rows by default."),
    ]))  # fmt: skip
    write_lines(homes["sessions"] / "rollout-2026-11-02T10-00-00-img.jsonl", [
        codex_line(0, "session_meta", {"id": "img", "cwd": "/home/me/infra"}),
        codex_line(1, "response_item", codex_message("user", "The container image is 2 GB.")),
        codex_line(2, "response_item", codex_message("assistant", "A two-stage build drops "
                                                     "the compilers.")),
    ])  # fmt: skip


def test_index_then_search_json_follows_the_contract(homes, capsys):
    _corpus(homes)
    assert main(["history", "index"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 conversations (4 messages) in the history index; 2 transcripts read")
    assert main(["history", "search", "shrink the docker image", "--json", "--limit", "1"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"query", "results", "warnings"}
    (row,) = payload["results"]
    assert set(row) == {"conversation", "source", "project", "similarity", "matched"}
    assert (row["conversation"], row["source"], row["project"]) == (
        "img",
        "codex",
        "/home/me/infra",
    )
    assert set(row["matched"]) == {"position", "author", "date", "text"}
    assert row["matched"]["text"] in ("The container image is 2 GB.",
                                      "A two-stage build drops the compilers.")  # fmt: skip
    assert isinstance(row["similarity"], float) and payload["warnings"] == []


def test_search_text_labels_a_models_lines(homes, capsys):
    _corpus(homes)
    assert main(["history", "index"]) == 0
    capsys.readouterr()
    assert main(["history", "search", "keyset pagination opaque cursor", "--limit", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. claude conversation paging  in /home/me/shop  message 2 of 2")
    assert lines[1:] == [
        "assistant wrote (a model's earlier output, not verified fact):",
        "| Keyset pagination with an opaque cursor; fifty rows by default.",
    ]


def test_search_without_an_index_fails_in_one_sentence(homes, capsys):
    assert main(["history", "search", "anything"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Run 'wherein history index' first" in err


def test_a_limit_below_one_is_a_usage_error(homes, capsys):
    assert main(["history", "search", "anything", "--limit", "0"]) == 2
    assert "--limit 0" in capsys.readouterr().err


def test_index_with_no_transcripts_says_where_it_looked(homes, capsys):
    assert main(["history", "index"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("0 conversations (0 messages)")
    assert "no Claude Code or Codex transcript found in" in captured.err
    assert str(homes["codex"] / "sessions") in captured.err
