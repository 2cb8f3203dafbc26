"""Markdown is cut at headings; fenced code is not a heading; long sections keep their title."""

from __future__ import annotations

from tests.chunking.listing import assert_chunks_match_file, uncovered_lines
from wherein.chunking import chunk_source


def chunk(text: str):
    language, chunks = chunk_source("docs/guide.md", text)
    assert language == "markdown"
    assert_chunks_match_file(text, chunks)
    assert uncovered_lines(text, chunks) == []
    return chunks


def all_symbols(chunks) -> list[str]:
    return [s for c in chunks for s in c.symbols]


def paragraph(n: int) -> str:
    return "".join(f"Line {i} of a long paragraph about the topic at hand.\n" for i in range(n))


def test_sections_split_at_headings_and_name_their_chunks():
    text = f"# Guide\n\n{paragraph(20)}\n## Install\n\n{paragraph(15)}\n## Use\n\nRun it.\n"
    chunks = chunk(text)
    assert [c.symbols for c in chunks] == [("Guide",), ("Install", "Use")]
    assert chunks[1].start_line == text.split("\n").index("## Install") + 1


def test_hash_lines_inside_fences_are_neither_cuts_nor_symbols():
    text = (
        "# Setup\n\n```bash\n# install the tool\npip install tool\n## not a heading\n```\n\n"
        "~~~\n# also code\n~~~\n\n## Next\n\nDone.\n"
    )
    assert all_symbols(chunk(text)) == ["Setup", "Next"]


def test_a_fence_closes_only_with_its_own_marker():
    # A ``` line inside a ~~~ fence is code, so the # line after it is still code.
    text = "# Top\n\n~~~markdown\n```\n# inside the example\n~~~\n\n## After\n"
    assert all_symbols(chunk(text)) == ["Top", "After"]


def test_heading_needs_a_space_and_loses_its_closing_hashes():
    text = "# Title #\n\n#hashtag is text\n\n## Using C#\n"
    assert all_symbols(chunk(text)) == ["Title", "Using C#"]


def test_long_section_is_windowed_and_later_windows_keep_the_heading():
    text = f"# Intro\n\nShort.\n\n## Reference\n\n{paragraph(90)}"
    chunks = chunk(text)
    reference = [c for c in chunks if c.start_line >= 5]
    assert len(reference) >= 3
    assert reference[0].symbols == ("Reference",) or "Reference" in chunks[0].symbols
    assert all(c.header == "## Reference" for c in reference[1:])
