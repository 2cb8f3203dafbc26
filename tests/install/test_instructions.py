"""The delimited note in CLAUDE.md / AGENTS.md: added once, removed exactly."""

from __future__ import annotations

import pytest

from wherein.install.instructions import BEGIN, END, SNIPPET, with_snippet, without_snippet

TEXTS = [
    "",
    "# Project\n\nRun the tests.\n",
    "# Project\n\n",
    "no newline at the end",
    "# Windows\r\n\r\nCRLF throughout.\r\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_snippet_is_added_once_and_removed_exactly(text):
    added = with_snippet(text)
    assert added.count(BEGIN) == 1 and added.count(END) == 1
    assert with_snippet(added) == added
    back = without_snippet(added)
    assert back == (text if text != "no newline at the end" else text + "\n")


def test_an_old_snippet_is_replaced_in_place():
    old = "# P\n\n<!-- wherein:begin (old words) -->\nuse recall\n<!-- wherein:end -->\n\n## More\n"
    updated = with_snippet(old)
    assert updated == "# P\n\n" + SNIPPET + "\n## More\n"
    assert without_snippet(updated) == "# P\n\n## More\n"


def test_the_snippet_says_when_to_call_recall_and_when_not():
    assert "before opening files" in SNIPPET.lower()
    assert "grep" in SNIPPET
    assert "re-read" in SNIPPET


def test_a_crlf_file_gets_a_crlf_snippet():
    added = with_snippet("# P\r\n")
    assert "\n" not in added.replace("\r\n", "")
