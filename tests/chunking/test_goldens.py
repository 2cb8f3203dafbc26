"""Golden chunk listings: one realistic file per language, reviewed by eye and checked in.

Set WHEREIN_UPDATE_GOLDENS=1 to rewrite the listings after an intended change, then read
the diff: a golden that encodes a bug is worse than none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.chunking.listing import assert_chunks_match_file, render_listing, uncovered_lines
from wherein.chunking import chunk_source
from wherein.chunking.chunker import MAX_CHUNK_CHARS, MAX_CHUNK_LINES, MAX_HEADER_LINES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"
GOLDEN_SUFFIX = ".chunks.txt"
# Read at import: the autouse `clean_environ` fixture drops WHEREIN_* variables per test.
UPDATE = os.environ.get("WHEREIN_UPDATE_GOLDENS") == "1"
SAMPLES = sorted(
    p for p in FIXTURES.iterdir() if p.is_file() and not p.name.endswith(GOLDEN_SUFFIX)
)


def _chunk(sample: Path):
    text = sample.read_text(encoding="utf-8")
    language, chunks = chunk_source(f"src/{sample.name}", text)
    return text, language, chunks


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_chunks_match_golden_listing(sample: Path):
    _text, language, chunks = _chunk(sample)
    listing = render_listing(sample.name, language, chunks)
    golden = sample.with_name(sample.name + GOLDEN_SUFFIX)
    if UPDATE:
        golden.write_text(listing, encoding="utf-8")
    assert golden.is_file(), f"No golden for {sample.name}; run with WHEREIN_UPDATE_GOLDENS=1."
    assert listing == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_fixture_chunks_are_exact_ordered_and_cover_every_line(sample: Path):
    text, _language, chunks = _chunk(sample)
    assert chunks
    assert_chunks_match_file(text, chunks)
    assert uncovered_lines(text, chunks) == []


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_fixture_chunks_stay_near_the_size_bound(sample: Path):
    # A split declaration's first part also carries its signature lines, so allow those.
    _text, _language, chunks = _chunk(sample)
    for chunk in chunks:
        assert chunk.end_line - chunk.start_line + 1 <= MAX_CHUNK_LINES + MAX_HEADER_LINES, chunk
        assert len(chunk.text) <= MAX_CHUNK_CHARS, chunk.start_line


def test_every_fixture_has_a_golden_and_every_golden_a_fixture():
    goldens = {p.name[: -len(GOLDEN_SUFFIX)] for p in FIXTURES.glob(f"*{GOLDEN_SUFFIX}")}
    assert goldens == {p.name for p in SAMPLES}


def test_fixtures_include_a_split_declaration_in_every_code_language():
    # Each code fixture has one declaration over MAX_CHUNK_LINES so splitting is exercised.
    for sample in SAMPLES:
        _text, language, chunks = _chunk(sample)
        if language in ("markdown", "text"):
            continue
        assert any(chunk.header for chunk in chunks), f"{sample.name} has no split declaration"
