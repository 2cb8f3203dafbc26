"""Text a repository (or a model) hands over is read in linear time, however it is built.

Each of these once searched with two quantifiers that could take the same characters, so a
long run of them with no match after it took quadratic time: a hostile megabyte held a
first index or a search for an hour. Each check runs in a process of its own, so a slow one
fails on its timeout instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from wherein.chunking.languages import language_of
from wherein.chunking.markdown import heading_text
from wherein.python_imports import imported_names
from wherein.ranking.rerank import parse_scores

MEGABYTE = 1_000_000
HOSTILE = {
    "a C header's C++ check": (
        "from wherein.chunking.languages import language_of",
        f"language_of('stall.h', 'namespace' + ' ' * {MEGABYTE} + '!')",
        "'c'",
    ),
    "a Markdown heading's closing hashes": (
        "from wherein.chunking.markdown import heading_text",
        f"heading_text('# Title' + ' ' * {MEGABYTE} + 'x')",
        "'Title' + ' ' * " + str(MEGABYTE) + " + 'x'",
    ),
    "a Python file's `from` imports": (
        "from wherein.python_imports import imported_names",
        f"imported_names('from ' + 'a' * {MEGABYTE} + '\\n')",
        "set()",
    ),
    # Scripts are read up to 256 KB when extra source roots are suggested.
    "a script's import specifiers": (
        "import pathlib, tempfile\nfrom wherein.root_suggestions import suggest_roots\n"
        "folder = pathlib.Path(tempfile.mkdtemp())\n"
        "(folder / 'app.js').write_text('import' + ' ' * 250_000 + 'x')",
        "suggest_roots(folder, [])",
        "[]",
    ),
    # What encloses each declaration was found by walking `.parent`, which tree-sitter works
    # out from the root: cubic in the nesting (1,000 nested functions 28 s, 2,000 minutes).
    # (`chunk_source` names no declaration of a file nested past MAX_BRACE_DEPTH: the query
    # is run here directly, past MAX_DECLARATION_DEPTH too.)
    "declarations nested 2,000 deep": (
        "from wherein.chunking.chunker import declarations\n"
        "from wherein.chunking.languages import definition_query, parser_for\n"
        "source = ''.join(f'function f{i}() {{\\n' for i in range(2000)) + '}\\n' * 2000\n"
        "root = parser_for('javascript').parse(source.encode()).root_node",
        "len(declarations(root, definition_query('javascript'), depth=10_000))",
        "2000",
    ),
    # Scala's grammar parses a long line in quadratic time (312 KB: 194 s): such a file is
    # cut into windows unparsed.
    "a Scala file's long line": (
        "from wherein.chunking import chunk_source",
        "chunk_source('s.scala', 'a = 1; ' * 50_000 + '\\nobject A\\n')[0]",
        "'scala'",
    ),
    # A model's answer is read up to 64 KB: one key of spaces fills it (40 s before).
    "a reranking model's candidate keys": (
        "from wherein.ranking.rerank import parse_scores",
        "parse_scores('{\"' + ' ' * 60_000 + 'x\": 3}', 2)",
        "[None, None]",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_is_read_at_once(name):
    imported, call, expected = HOSTILE[name]
    program = f"{imported}\nprint({call} == {expected})\n"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=20
    )
    assert done.stdout.strip() == "True", done.stderr


def test_the_header_check_still_knows_cpp_from_c():
    for line in ("namespace {", "namespace gfx::detail {", "template <class T>", " public:"):
        assert language_of("a.h", f"int x;\n{line}\n") == "cpp", line
    for line in ("/* namespace */", "int class_count;", "// std::vector", 'extern "C" {'):
        assert language_of("a.h", f"int x;\n{line}\n") == "c", line


def test_headings_lose_a_closing_sequence_but_keep_a_hash_of_their_own():
    assert heading_text("## Install ##") == "Install"
    assert heading_text("# Using C#") == "Using C#"
    assert heading_text("### Steps #  ") == "Steps"
    assert heading_text("# ##") == ""
    assert heading_text("## Tabs\t##\t") == "Tabs"


def test_from_imports_are_read_with_their_dotted_names():
    text = "from a.b.c import d\nfrom .local import x\n  from e import (f)\nfrom g..h import i\n"
    assert imported_names(text) == {"a", "e", "g"}


def test_candidate_keys_are_read_in_each_spelling():
    answer = '{"1": 7, "candidate 2": 5, "#3": 1, " candidate # 4 ": 9, "x5": 2}'
    assert parse_scores(answer, 5) == [7.0, 5.0, 1.0, 9.0, None]
