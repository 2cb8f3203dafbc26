"""Render chunks as golden listings and check the invariants every chunking must keep."""

from __future__ import annotations

from wherein.chunking import Chunk

HEADER_SEPARATOR = " / "


def render_listing(name: str, language: str, chunks: list[Chunk]) -> str:
    """One line per chunk: `start-end kind [symbols] | prototypes: names | header: lines`."""
    out = [
        f"# {name}: language {language}, {len(chunks)} chunks.",
        "# Regenerate: WHEREIN_UPDATE_GOLDENS=1 pytest tests/chunking/test_goldens.py",
    ]
    for chunk in chunks:
        line = f"{chunk.start_line}-{chunk.end_line} {chunk.kind} [{', '.join(chunk.symbols)}]"
        if chunk.prototypes:
            line += f" | prototypes: {', '.join(chunk.prototypes)}"
        if chunk.header:
            header = HEADER_SEPARATOR.join(part.strip() for part in chunk.header.split("\n"))
            line += f" | header: {header}"
        out.append(line)
    return "\n".join(out) + "\n"


def assert_chunks_match_file(text: str, chunks: list[Chunk]) -> None:
    """Lines are 1-based and inclusive, text is exactly those lines, chunks are in order."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    previous_end = 0
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), chunk
        assert chunk.start_line > previous_end, f"{chunk} overlaps the chunk before it"
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.text.strip(), f"{chunk} is blank"
        for header_line in chunk.header.split("\n") if chunk.header else ():
            assert header_line in lines[: chunk.start_line - 1], header_line
        previous_end = chunk.end_line


def uncovered_lines(text: str, chunks: list[Chunk]) -> list[int]:
    """Non-blank lines that no chunk holds: content the index would never see."""
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    return [
        number
        for number, line in enumerate(text.split("\n"), start=1)
        if line.strip() and number not in covered
    ]
