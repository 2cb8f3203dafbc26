"""A declaration's doc comment stays with the declaration, even when either is too large
for one chunk: a comment cut away is the declaration's best description, in a chunk that
names nothing."""

from __future__ import annotations

import pytest

from tests.chunking.listing import assert_chunks_match_file, uncovered_lines
from wherein.chunking import chunk_source
from wherein.chunking.chunker import MAX_CHUNK_LINES


def chunk(path: str, text: str):
    _language, chunks = chunk_source(path, text)
    assert_chunks_match_file(text, chunks)
    assert uncovered_lines(text, chunks) == []
    assert all(c.end_line - c.start_line + 1 <= MAX_CHUNK_LINES for c in chunks)
    return chunks


def block_doc(lines: int, indent: str = "") -> str:
    """A `/** ... */` comment of `lines` lines."""
    prose = "".join(f"{indent} * Explains case {i} of the store.\n" for i in range(lines - 2))
    return f"{indent}/**\n{prose}{indent} */\n"


def line_doc(lines: int, mark: str, indent: str = "") -> str:
    """A run of `lines` line comments (`///`, `//`)."""
    return "".join(f"{indent}{mark} Explains case {i} of the store.\n" for i in range(lines))


def members(count: int, template: str) -> str:
    return "".join(template.format(i=i) for i in range(count))


# A documented type whose members make it too large for one chunk, in each language that
# writes its doc comments before the declaration: (path, source, the type's name).
DOCUMENTED_TYPES = {
    "typescript": (
        "store.ts",
        block_doc(30)
        + "export class Store {\n"
        + members(20, "  get{i}(): number {{\n    return {i};\n  }}\n")
        + "}\n",
        "Store",
    ),
    "java": (
        "Store.java",
        block_doc(30)
        + "public class Store {\n"
        + members(20, "  int get{i}() {{\n    return {i};\n  }}\n")
        + "}\n",
        "Store",
    ),
    "kotlin": (
        "Store.kt",
        block_doc(30)
        + "class Store {\n"
        + members(20, "  fun get{i}(): Int {{\n    return {i}\n  }}\n")
        + "}\n",
        "Store",
    ),
    "csharp": (
        "Store.cs",
        line_doc(30, "///")
        + "public class Store\n{\n"
        + members(20, "    public int Get{i}()\n    {{\n        return {i};\n    }}\n")
        + "}\n",
        "Store",
    ),
    "rust": (
        "store.rs",
        line_doc(30, "///")
        + "pub trait Store {\n"
        + members(20, "    fn get{i}(&self) -> i32 {{\n        {i}\n    }}\n")
        + "}\n",
        "Store",
    ),
    "swift": (
        "Store.swift",
        line_doc(30, "///")
        + "class Store {\n"
        + members(20, "    func get{i}() -> Int {{\n        return {i}\n    }}\n")
        + "}\n",
        "Store",
    ),
    "php": (
        "Store.php",
        "<?php\n"
        + block_doc(30)
        + "class Store {\n"
        + members(20, "    public function get{i}() {{\n        return {i};\n    }}\n")
        + "}\n",
        "Store",
    ),
    "cpp": (
        "store.cpp",
        line_doc(30, "///")
        + "class Store {\n public:\n"
        + members(20, "  int get{i}() const {{\n    return {i};\n  }}\n")
        + "};\n",
        "Store",
    ),
    "go": (
        "store.go",
        "package store\n\n"
        + line_doc(30, "//")
        + "func Store() {\n"
        + members(40, "\tstep({i})\n")
        + "}\n",
        "Store",
    ),
}


@pytest.mark.parametrize("language", sorted(DOCUMENTED_TYPES))
def test_a_split_declaration_opens_its_first_part_with_its_doc_comment(language):
    # The comment and the declaration's first line fit in a chunk, the whole does not:
    # the comment used to be a chunk of its own, naming nothing.
    path, source, name = DOCUMENTED_TYPES[language]
    chunks = chunk(path, source)
    assert len(chunks) > 1
    first_doc_row = next(i for i, line in enumerate(source.split("\n")) if "case 0 " in line)
    opening = next(c for c in chunks if c.start_line <= first_doc_row + 1 <= c.end_line)
    assert name in opening.symbols
    assert name not in opening.prototypes


def test_a_documented_function_too_large_for_a_chunk_but_unsplittable_opens_with_its_doc():
    # One statement in the body: no structure to split at, so the unit is cut into windows,
    # whose first used to be the comment alone.
    call = "".join(f"    step({i}),\n" for i in range(25))
    source = block_doc(32) + f"export function run() {{\n  return all(\n{call}  );\n}}\n"
    chunks = chunk("run.ts", source)
    assert chunks[0].start_line == 1
    assert chunks[0].symbols == ("run",)
    assert chunks[0].prototypes == ()


def test_a_doc_comment_longer_than_a_chunk_names_what_it_documents_as_a_prototype():
    # rxjs documents an operator in 60 to 150 lines with examples: each window of the
    # comment names the operator, without its body, so the definition still ranks first.
    source = block_doc(100) + "export function observeOn(delay = 0) {\n  return delay;\n}\n"
    chunks = chunk("observeOn.ts", source)
    assert all(c.symbols == ("observeOn",) for c in chunks)
    *docs, definition = chunks
    assert len(docs) >= 2 and all(c.prototypes == ("observeOn",) for c in docs)
    assert definition.prototypes == ()
    assert "export function observeOn" in definition.text
    assert "Explains case 97" in definition.text  # the comment's tail, as it fits


def test_a_short_doc_comment_keeps_the_first_part_as_it_was():
    # A lead within the header bound joins the first part as before: the parts' bounds
    # are not spent on it twice.
    source = (
        "/** A store. */\nexport class Store {\n"
        + members(20, "  get{i}(): number {{\n    return {i};\n  }}\n")
        + "}\n"
    )
    chunks = chunk("store.ts", source)
    assert chunks[0].start_line == 1 and chunks[0].symbols[0] == "Store"
    assert chunks[1].header == "export class Store {"


def test_a_doc_comment_that_fits_only_with_the_signature_documents_the_declaration():
    # The comment and the signature fit in a chunk, but not with the body's first statement:
    # the comment's first window used to name nothing.
    signature = "export function run(\n  first: number,\n  second: number,\n  third: number,\n"
    body = "".join(f"  step({i});\n" for i in range(40))
    source = block_doc(35) + signature + "): number {\n" + body + "}\n"
    chunks = chunk("run.ts", source)
    assert chunks[0].symbols == ("run",) and chunks[0].prototypes == ("run",)
    defining = next(c for c in chunks if "export function run(" in c.text)
    assert defining.symbols == ("run",) and defining.prototypes == ()


def test_a_long_signature_without_a_doc_comment_keeps_a_part_of_its_own():
    # Only a doc comment opens the first part with the body's head: a signature alone
    # doing so took the room its class's short attributes had joined, and Python's bench
    # fell (model2vec's `distill`, aiohttp's `ClientSession.__init__`).
    params = "".join(f"    p{i}: int = {i},\n" for i in range(10))
    doc = "".join(f"    :param p{i}: The knob {i}.\n" for i in range(34))
    body = "".join(f"    step(p{i % 10})\n" for i in range(30))
    source = f'def distill(\n{params}) -> None:\n    """\n{doc}    """\n{body}'
    chunks = chunk("distill.py", source)
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 12)
    assert chunks[0].symbols == ("distill",)
