"""Every declaration query compiles against its grammar, and the required languages are covered."""

from __future__ import annotations

from importlib import resources

import pytest
from tree_sitter import Query, QueryCursor
from tree_sitter_language_pack import get_language, get_parser

from wherein.chunking import chunk_source
from wherein.chunking.languages import (
    CODE_LANGUAGES,
    EXTENSIONS,
    definition_query,
    language_for,
    parser_for,
)

QUERY_DIR = resources.files("wherein.chunking").joinpath("queries")
QUERY_FILES = sorted(p.name for p in QUERY_DIR.iterdir() if p.name.endswith(".scm"))
# The coverage the project promises: these must parse and name their declarations.
REQUIRED = {
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rs": "rust",
    "java": "java",
    "c": "c",
    "cpp": "cpp",
    "cs": "csharp",
    "rb": "ruby",
    "php": "php",
    "kt": "kotlin",
    "swift": "swift",
    "scala": "scala",
    "sh": "bash",
    "lua": "lua",
    "ex": "elixir",
    "hs": "haskell",
    "zig": "zig",
    "dart": "dart",
}


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_file_compiles_against_its_grammar(name):
    language = name.removesuffix(".scm")
    assert language in CODE_LANGUAGES, f"{name} names no language the chunker maps files to"
    source = QUERY_DIR.joinpath(name).read_text(encoding="utf-8")
    query = Query(get_language(language), source)
    assert query.pattern_count > 0
    assert query.capture_count >= 2  # at least @definition and @name (or @qualified_name)


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_captures_definition_and_name_in_every_pattern(name):
    query = definition_query(name.removesuffix(".scm"))
    source = QUERY_DIR.joinpath(name).read_text(encoding="utf-8")
    assert "@definition" in source
    names = {query.capture_name(i) for i in range(query.capture_count)}
    # A name is captured, or a node the chunker finds it in (chunker.declarations).
    assert "definition" in names and names & {"name", "named", "qualified_name", "declarator"}
    known = {"declarator", "definition", "name", "named", "namespace", "qualified_name"}
    known |= {"import", "prototype", "receiver"}
    assert names <= known | {n for n in names if n.startswith("_")}


@pytest.mark.parametrize("name", QUERY_FILES)
def test_query_avoids_predicates_the_bindings_mis_evaluate(name):
    # tree-sitter 0.26's Python bindings mis-evaluate #not-any-of? (see
    # test_not_any_of_with_several_values_excludes_nothing_in_these_bindings).
    source = QUERY_DIR.joinpath(name).read_text(encoding="utf-8")
    code = [line.split(";", 1)[0] for line in source.splitlines()]
    assert not [line for line in code if "#not-any-of?" in line]


@pytest.mark.parametrize(("extension", "language"), sorted(REQUIRED.items()))
def test_required_language_is_mapped_parsed_and_queried(extension, language):
    assert EXTENSIONS[extension] == language
    assert language_for(f"src/module.{extension}") == language
    assert parser_for(language) is not None
    assert definition_query(language) is not None


def test_markdown_and_unknown_text_are_chunked_without_a_grammar():
    assert chunk_source("docs/guide.md", "# Title\n\nBody.\n")[0] == "markdown"
    language, chunks = chunk_source("notes/todo.unknownext", "one\ntwo\n")
    assert language == "text"
    assert [c.kind for c in chunks] == ["text"]


def _captured(language: str, source: bytes, pattern: str) -> list[bytes]:
    tree = get_parser(language).parse(source)
    cursor = QueryCursor(Query(get_language(language), pattern))
    return [captures["name"][0].text for _, captures in cursor.matches(tree.root_node)]


def test_predicates_the_queries_use_are_honoured():
    source = b"X = 1\nfoo = 2\ndef f(): pass\n"
    assert _captured("python", source, '((identifier) @name (#eq? @name "foo"))') == [b"foo"]
    assert _captured("python", source, '((identifier) @name (#match? @name "^[A-Z]"))') == [b"X"]
    any_of = '((identifier) @name (#any-of? @name "f" "X"))'
    assert _captured("python", source, any_of) == [b"X", b"f"]
    not_match = '((identifier) @name (#not-match? @name "^(X|f)$"))'
    assert _captured("python", source, not_match) == [b"foo"]


def test_not_any_of_with_several_values_excludes_nothing_in_these_bindings():
    # Documents why the queries spell exclusions with #not-match?: in tree-sitter 0.26's
    # Python bindings `#not-any-of?` holds when the text differs from *some* value, so
    # with two or more values it never excludes. If this starts to fail, it was fixed.
    source = b"X = 1\nfoo = 2\n"
    pattern = '((identifier) @name (#not-any-of? @name "X" "Y"))'
    assert _captured("python", source, pattern) == [b"X", b"foo"]
