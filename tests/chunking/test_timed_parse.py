"""A parse that reads its input too slowly is cut, and the file is chunked without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wherein.chunking import chunk_source, timed_parse
from wherein.chunking.chunker import declarations
from wherein.chunking.languages import definition_query, grammar_of, language_of, parser_for
from wherein.chunking.timed_parse import PARSE_GRACE_S, parse_in_time

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"
SAMPLES = sorted(p for p in FIXTURES.iterdir() if p.is_file() and ".chunks" not in p.name)


def _parser(name: str, text: str):
    grammar = grammar_of(language_of(name, text), text)
    return grammar, parser_for(grammar)


class SlowClock:
    """A clock that moves `step` seconds each time it is read: a parse that falls behind."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_parse_that_falls_behind_its_input_is_cut():
    text = "else\n" * 100_000  # 500 KB: the C# grammar's error recovery, seconds
    _, parser = _parser("a.cs", text)
    data = text.encode()
    assert parse_in_time(parser, data, clock=SlowClock(PARSE_GRACE_S)) is None
    # The same parser goes on to parse the next file whole.
    tree = parse_in_time(parser, b"class A { void F() {} }", clock=SlowClock(PARSE_GRACE_S))
    assert tree is not None and not tree.root_node.has_error


def test_a_file_whose_parse_was_cut_is_chunked_as_text_with_every_line(monkeypatch):
    monkeypatch.setattr(timed_parse, "PARSE_GRACE_S", -1.0)  # every read is too late
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(200))
    language, chunks = chunk_source("big.py", text)
    assert language == "python"
    assert {chunk.kind for chunk in chunks} == {"text"}
    assert not any(chunk.symbols for chunk in chunks)
    covered = {row for c in chunks for row in range(c.start_line, c.end_line + 1)}
    assert covered == set(range(1, text.count("\n") + 1))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_a_parse_in_time_names_what_a_whole_parse_names(sample):
    """Names are read through the parse's callback, in blocks smaller than some nodes."""
    text = sample.read_text(encoding="utf-8")
    grammar, parser = _parser(sample.name, text)
    query = definition_query(grammar) if grammar else None
    if query is None:
        pytest.skip(f"no declaration query for {sample.name}")
    data = text.encode()
    whole = declarations(parser.parse(data).root_node, query)
    timed = declarations(parse_in_time(parser, data).root_node, query)
    assert timed == whole and whole


def test_a_node_longer_than_a_read_block_has_all_its_text():
    value = "x" * (3 * timed_parse.TEXT_BYTES + 7)
    text = f'S = "{value}"\n'
    _, parser = _parser("long.py", text)
    tree = parse_in_time(parser, text.encode())
    nodes = [tree.root_node]
    while nodes[-1].type != "string":
        nodes.extend(nodes.pop().children)
    assert nodes[-1].text == f'"{value}"'.encode()
