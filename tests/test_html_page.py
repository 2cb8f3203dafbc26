"""The two HTML reports' shared writer: whole or not at all, never through a link."""

from __future__ import annotations

import os

import pytest

from wherein.errors import UsageError
from wherein.html_page import page_head, write_page_file


def test_a_new_page_is_written_whole_and_readable_by_others(tmp_path):
    page = tmp_path / "report.html"
    assert write_page_file("<!doctype html>\n", page) == len("<!doctype html>\n")
    assert page.read_text() == "<!doctype html>\n"
    assert oct(page.stat().st_mode & 0o777) == "0o644"


def test_a_planted_link_is_refused_and_its_target_kept(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    link = tmp_path / "report.html"
    os.symlink(target, link)
    with pytest.raises(UsageError, match="Cannot write the HTML report"):
        write_page_file("<p>x</p>", link)
    assert target.read_text() == "keep me\n"


def test_a_missing_folder_is_named_not_made(tmp_path):
    page = tmp_path / "missing-folder" / "report.html"
    with pytest.raises(UsageError, match="missing-folder"):
        write_page_file("<p>x</p>", page)
    assert not page.parent.exists()


def test_the_head_escapes_the_title_and_carries_the_policy():
    head = "\n".join(page_head("default-src 'none'", "<script>", "p { }"))
    assert "<title>&lt;script&gt;</title>" in head
    assert "content=\"default-src 'none'\"" in head
