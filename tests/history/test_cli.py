"""`wherein history index|search` through the real command, with the default in-process model."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.history.builders import claude_conversation, codex_line, codex_message, write_lines
from wherein.cli import main
from wherein.history.store import history_index_path


def _corpus(homes) -> None:
    write_lines(
        homes["projects"] / "paging.jsonl",
        claude_conversation(
            "paging",
            [
                ("user", "How should the orders endpoint page its results?"),
                ("assistant", "Keyset pagination with an opaque cursor; fifty rows by default."),
            ],
        ),
    )
    write_lines(
        homes["sessions"] / "rollout-2026-11-02T10-00-00-img.jsonl",
        [
            codex_line(0, "session_meta", {"id": "img", "cwd": "/home/me/infra"}),
            codex_line(1, "response_item", codex_message("user", "The container image is 2 GB.")),
            codex_line(
                2,
                "response_item",
                codex_message("assistant", "A two-stage build drops the compilers."),
            ),
        ],
    )


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
    assert row["matched"]["text"] in (
        "The container image is 2 GB.",
        "A two-stage build drops the compilers.",
    )
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


@pytest.mark.parametrize("kind", ["folder", "fifo", "link"])
def test_a_folder_fifo_or_link_in_place_of_the_history_index_is_moved_aside(
    homes, capsys, tmp_path, kind
):
    _corpus(homes)
    path = history_index_path()
    path.parent.mkdir(parents=True)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    if kind == "folder":
        path.mkdir()
        (path / "keep.txt").write_text("mine")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(notes)
    said = {"folder": "a folder", "fifo": "a FIFO", "link": "a symbolic link"}[kind]
    why = f"index.db is {said}, not a regular file"

    assert main(["history", "search", "docker image"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"wherein: The history index at {path} is unreadable ({why}). Run 'wherein history "
        "index' to rebuild it.\n"
    )
    assert main(["history", "index"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("2 conversations (4 messages) in the history index")
    (aside,) = path.parent.glob("index.db.broken-*")
    assert f"wherein: The history index at {path} was unreadable ({why}); moved it to {aside}." in (
        captured.err.splitlines()
    )
    if kind == "folder":
        assert (aside / "keep.txt").read_text() == "mine"
    elif kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(aside).st_mode)
    else:
        assert os.readlink(aside) == str(notes) and notes.read_text() == "my notes"
    assert main(["history", "search", "shrink the docker image", "--json", "--limit", "1"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["conversation"] == "img"
