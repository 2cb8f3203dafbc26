"""A function the grammar could not close keeps its name, found again by its header line."""

from __future__ import annotations

import time

from tests.helpers import printed_in_time
from wherein.chunking import chunk_source
from wherein.chunking.languages import parser_for
from wherein.chunking.unclosed import unclosed_functions

STEPS = "\n".join(f'    echo "step {i}" >>"$log"' for i in range(60))
# Bash's grammar misreads `]?(...)` in the expansion: the rest of the file is an error node.
SCRIPT = f"""#!/bin/bash

greet() {{
    echo "hello"
}}

# Strips a bracketed port from a host.
strip_port()
{{
    local host=$1 log=/tmp/log
    host="${{host%]?(:9)}}"
{STEPS}
    echo "$host"
}}

farewell() {{
    echo "bye"
}}
"""


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1]


def test_functions_an_error_swallowed_keep_their_names_and_headers():
    root = parser_for("bash").parse(SCRIPT.encode()).root_node
    assert root.has_error  # the misparse this recovers from
    language, chunks = chunk_source("tool.sh", SCRIPT)
    names = [name for chunk in chunks for name in chunk.symbols]
    assert language == "bash"
    assert names == ["greet", "strip_port", "farewell"]
    opening = next(chunk for chunk in chunks if "strip_port" in chunk.symbols)
    assert opening.text.startswith("# Strips a bracketed port")
    later = [chunk for chunk in chunks if chunk.start_line > opening.end_line]
    parts = [chunk for chunk in later if chunk.end_line < SCRIPT.count("\n") - 3]
    assert parts and all(chunk.header == "strip_port()" for chunk in parts)
    # Every line in exactly one chunk, cut from the file as it is.
    lines = _lines(SCRIPT)
    rows = [row for chunk in chunks for row in range(chunk.start_line, chunk.end_line + 1)]
    assert rows == sorted(set(rows))
    assert {r for r, line in enumerate(lines, 1) if line.strip()} <= set(rows)
    for chunk in chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])


# A function whose body the grammar misreads: what follows is one error node.
LEAD = 'lead() {\n    v="${v%]?(x)}"\n'


def _found(text: str, declared: frozenset[int] = frozenset()):
    """The functions recovered from `text` after LEAD, as (name, start, row, end), rows
    0-based in `text`."""
    root = parser_for("bash").parse((LEAD + text).encode()).root_node
    lines = _lines(LEAD + text)
    shift = LEAD.count("\n")
    found = unclosed_functions(root, lines, "bash", {row + shift for row in declared})
    return [
        (u.name, u.start - shift, u.row - shift, u.end - shift) for u in found if u.name != "lead"
    ]


def test_a_header_ends_at_its_own_closing_brace():
    text = (
        "outer() {\n"  # row 0
        "    inner() {\n"
        "        echo in\n"
        "    }\n"
        "    echo out\n"
        "}\n"  # row 5
        "echo top\n"
        "function kw {\n"  # row 7
        "    :\n"
        "}\n"
        "one() { echo 1; }\n"  # row 10
    )
    assert _found(text) == [
        ("outer", 0, 0, 5),
        ("inner", 1, 1, 3),
        ("kw", 7, 7, 9),
        ("one", 10, 10, 10),
    ]


def test_an_unclosed_header_ends_before_the_next_and_its_comment():
    text = "first()\n{\n    echo a\n\n# the second\nsecond() {\n    echo b\n"
    assert _found(text) == [("first", 0, 0, 2), ("second", 4, 5, 6)]


def test_declared_functions_and_calls_are_not_headers():
    text = "named() {\n    :\n}\nnamed\ncall ()\necho done\n"
    assert _found(text, frozenset({0})) == []


def test_many_headers_take_one_pass():
    """Each header is closed once, by the line that ends it: no rescan per header."""
    count = 20_000
    nested = "".join(f"{' ' * (i % 50)}f{i}() {{\n" for i in range(count))
    lines = [f"g{i}() {{" for i in range(count)] + [f"    echo {i}" for i in range(count)]
    began = time.perf_counter()
    assert len(_found(nested)) == count
    assert len(_found("\n".join(lines) + "\n")) == count
    assert time.perf_counter() - began < 10


def test_a_header_line_of_many_blanks_is_read_in_one_pass():
    # Two runs of blanks side by side in the header pattern tried every split between them:
    # 20,000 blanks before a stray word took 14 s, and a file may hold a megabyte of them.
    code = (
        "from wherein.chunking import chunk_source\n"
        "from tests.chunking.test_unclosed import SCRIPT\n"
        "blanks = ' ' * 300_000\n"
        "lines = [f'f(){blanks}x', f'function g{blanks}()x', f'h() {{{blanks}x']\n"
        "_, chunks = chunk_source('hostile.sh', SCRIPT + '\\n'.join(lines) + '\\n')\n"
        "print(sorted({s for c in chunks for s in c.symbols}))\n"
    )
    assert printed_in_time(code) == "['farewell', 'greet', 'strip_port']"
