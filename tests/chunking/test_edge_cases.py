"""Awkward input still yields exact, bounded chunks: empty, comments only, CRLF, huge lines."""

from __future__ import annotations

import textwrap

import pytest

from tests.chunking.listing import assert_chunks_match_file, uncovered_lines
from wherein.chunking import chunk_source
from wherein.chunking.chunker import MAX_CHUNK_LINES

LONG_LINE_CHARS = 50_000


def chunk(path: str, text: str):
    language, chunks = chunk_source(path, text)
    assert_chunks_match_file(text, chunks)
    assert uncovered_lines(text, chunks) == []
    return language, chunks


@pytest.mark.parametrize("path", ["a.py", "a.go", "a.md", "a.txt", "a.ex"])
@pytest.mark.parametrize("text", ["", "\n", "\n\n\n", "   \n\t\n"])
def test_empty_or_blank_file_has_no_chunks(path, text):
    assert chunk(path, text)[1] == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("a.py", "# one\n# two\n\n# three\n"),
        ("a.go", "// Package a is empty.\n/* and stays so */\n"),
        ("a.rs", "//! crate docs\n/// nothing follows\n"),
        ("a.hs", "-- | nothing\n{- block -}\n"),
    ],
)
def test_file_of_only_comments_is_one_chunk_without_symbols(path, text):
    _language, chunks = chunk(path, text)
    assert len(chunks) == 1
    assert chunks[0].symbols == ()


def test_crlf_line_endings_keep_lines_and_names():
    source = "class Alpha:\n    def run(self):\n        return 1\n\n\ndef beta():\n    pass\n"
    source = source.replace("\n", "\r\n")
    _language, chunks = chunk("crlf.py", source)
    assert [c.symbols for c in chunks] == [("Alpha", "Alpha.run", "beta")]
    assert chunks[0].text.split("\n")[0] == "class Alpha:\r"
    assert chunks[0].end_line == 7


def test_crlf_file_splits_like_its_lf_twin():
    body = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(30))
    lf = f"class Big:\n{body}"
    crlf = lf.replace("\n", "\r\n")
    lf_chunks = chunk("big.py", lf)[1]
    crlf_chunks = chunk("big.py", crlf)[1]
    assert len(lf_chunks) > 1
    assert [(c.start_line, c.end_line, c.symbols) for c in crlf_chunks] == [
        (c.start_line, c.end_line, c.symbols) for c in lf_chunks
    ]
    assert [c.header.rstrip("\r") for c in crlf_chunks] == [c.header for c in lf_chunks]


@pytest.mark.parametrize("path", ["bundle.js", "data.json.txt", "blob.py", "README.md"])
def test_single_huge_line_is_one_chunk(path):
    text = "x = [" + "1, " * (LONG_LINE_CHARS // 3) + "]\n"
    assert len(text) > LONG_LINE_CHARS
    _language, chunks = chunk(path, text)
    assert len(chunks) == 1
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 1)


def test_huge_line_between_declarations_leaves_the_neighbours_named():
    text = (
        "def before():\n    pass\n\nDATA = '"
        + "a" * LONG_LINE_CHARS
        + "'\n\ndef after():\n    pass\n"
    )
    _language, chunks = chunk("mixed.py", text)
    symbols = [s for c in chunks for s in c.symbols]
    assert symbols == ["before", "DATA", "after"]
    assert max(len(c.text) for c in chunks) > LONG_LINE_CHARS  # the line is never cut


def test_many_long_lines_in_one_function_are_windowed_within_the_line_bound():
    lines = [f"    value_{i} = '{'z' * 400}'" for i in range(120)]
    text = "def generated_table():\n" + "\n".join(lines) + "\n"
    _language, chunks = chunk("table.py", text)
    assert len(chunks) > 1
    assert all(c.end_line - c.start_line + 1 <= MAX_CHUNK_LINES for c in chunks)


def test_nul_bytes_mid_file_do_not_break_chunking():
    text = "def first():\n    return '\x00'\n\n\x00\x00 garbage\n\ndef second():\n    pass\n"
    _language, chunks = chunk("nul.py", text)
    symbols = [s for c in chunks for s in c.symbols]
    assert "first" in symbols and "second" in symbols


def test_replacement_characters_and_astral_text_keep_line_numbers():
    text = "def café():\n    return '\ufffd🙂'\n\ndef tea():\n    pass\n"
    _language, chunks = chunk("unicode.py", text)
    assert [s for c in chunks for s in c.symbols] == ["café", "tea"]


@pytest.mark.parametrize(
    ("path", "source", "survivor"),
    [
        (
            "broken.py",
            "def ok():\n    pass\n\ndef broken(:\n    return [\n\nclass Later:\n    x = 1\n",
            "ok",
        ),
        ("broken.go", "package a\n\nfunc Good() {}\n\nfunc Bad( {\n\tif x {\n", "Good"),
        ("broken.js", "function good() {}\nclass {\n  oops(\n}\n", "good"),
        ("broken.rs", "fn good() {}\nimpl {\n fn half(\n", "good"),
    ],
)
def test_syntax_errors_still_chunk_and_keep_what_parses(path, source, survivor):
    _language, chunks = chunk(path, source)
    assert chunks
    assert survivor in [s for c in chunks for s in c.symbols]


def test_unterminated_block_comment_swallowing_the_file_still_chunks():
    source = "int good(void) { return 0; }\n/* never closed\n" + "int x;\n" * 200
    _language, chunks = chunk("open.c", source)
    assert chunks[0].symbols[0] == "good"
    assert all(c.end_line - c.start_line + 1 <= MAX_CHUNK_LINES for c in chunks)


def test_deeply_nested_code_chunks_without_recursion_trouble():
    depth = 400
    body = "".join("    " * i + "if (x) {\n" for i in range(depth))
    body += "".join("    " * i + "}\n" for i in reversed(range(depth)))
    text = f"function deep(x) {{\n{body}}}\n"
    _language, chunks = chunk("deep.js", text)
    assert chunks[0].symbols == ("deep",)


def test_file_without_trailing_newline_ends_on_its_last_line():
    _language, chunks = chunk("a.py", "def a():\n    return 1")
    assert (chunks[-1].end_line, chunks[-1].text) == (2, "def a():\n    return 1")


def test_form_feed_and_unicode_line_separators_do_not_shift_lines():
    # Only "\n" ends a line, as tree-sitter counts rows; str.splitlines() would disagree.
    source = textwrap.dedent(
        """\
        def a():
            return "\u2028"
        \f
        def b():
            return 2
        """
    )
    _language, chunks = chunk("sep.py", source)
    assert [s for c in chunks for s in c.symbols] == ["a", "b"]
    assert chunks[-1].end_line == 5


def _no_query(monkeypatch):
    """Make running a declaration query fail the test."""
    from wherein.chunking import chunker

    def refused(root, query):
        raise AssertionError("the declaration query ran")

    monkeypatch.setattr(chunker, "declarations", refused)


def test_an_error_node_of_very_many_children_is_chunked_without_the_query(monkeypatch):
    # Objective-C's recovery from 6,000 nested `^{` is one error node of 12,000 children,
    # which tree-sitter's query cursor crosses in time square in their number.
    source = "#import <x.h>\n" + "^{\n" * 6000 + "}\n" * 6000
    _no_query(monkeypatch)
    language, chunks = chunk_source("blocks.h", source)
    assert language == "objc"
    assert_chunks_match_file(source, chunks)
    assert uncovered_lines(source, chunks) == []


def test_braces_nested_past_any_code_are_chunked_without_the_query(monkeypatch):
    source = "#import <x.h>\n" + "@implementation A\n- (void)f {\n" * 600
    _no_query(monkeypatch)
    _language, chunks = chunk_source("nested.m", source)
    assert_chunks_match_file(source, chunks)
    assert uncovered_lines(source, chunks) == []


def test_a_name_is_qualified_by_the_innermost_few_names_only():
    from wherein.chunking.chunker import MAX_QUALIFIERS, declarations
    from wherein.chunking.languages import definition_query, parser_for

    depth = 300  # 300 nested functions: whole paths were 300 names each, copied per level
    source = "".join(f"function f{i}() {{\n" for i in range(depth)) + "}\n" * depth
    tree = parser_for("javascript").parse(source.encode())
    found = declarations(tree.root_node, definition_query("javascript"))
    assert [d.depth for d in found] == list(range(depth))  # the nesting itself is kept
    assert found[0].qualified == "f0"
    innermost = [f"f{i}" for i in range(depth - MAX_QUALIFIERS, depth)]
    assert found[-1].qualified == ".".join(innermost)


@pytest.mark.parametrize(
    ("grammar", "opener", "closer"),
    [("ruby", "def a\n", "end\n"), ("bash", "f() (\n", ")\n")],
)
def test_declarations_nested_past_any_code_are_not_looked_for(grammar, opener, closer):
    # Past a depth of 65,536 tree-sitter's query cursor takes minutes over a megabyte of
    # nested `def`s (Ruby) or subshell functions (Bash), which hold no brace; the query
    # starts no match deeper than MAX_DECLARATION_DEPTH, and the outer ones keep names.
    from wherein.chunking.chunker import MAX_DECLARATION_DEPTH, declarations
    from wherein.chunking.languages import definition_query, parser_for

    nesting = MAX_DECLARATION_DEPTH * 2
    source = opener * nesting + closer * nesting
    tree = parser_for(grammar).parse(source.encode())
    found = declarations(tree.root_node, definition_query(grammar))
    assert found[0].row == 0
    assert 0 < len(found) < MAX_DECLARATION_DEPTH


def test_a_declaration_of_sixty_thousand_names_keeps_the_first_few():
    # Each further declarator's name is compared with the first's place in the declaration:
    # past MAX_SYMBOLS names it is not, and the place is looked for among the first children
    # only. Scanning all 120,000 children for each name held this file for minutes.
    from wherein.chunking.chunker import MAX_SYMBOLS

    source = "int " + ", ".join(f"a{i}" for i in range(60_000)) + ";\n"
    _language, chunks = chunk("many.c", source)
    assert chunks[0].symbols == tuple(f"a{i}" for i in range(MAX_SYMBOLS))
