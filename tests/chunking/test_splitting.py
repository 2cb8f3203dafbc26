"""How large declarations are split, what headers the parts carry, and what stays together."""

from __future__ import annotations

from tests.chunking.listing import assert_chunks_match_file, uncovered_lines
from wherein.chunking import chunk_source
from wherein.chunking.chunker import MAX_CHUNK_LINES, MAX_HEADER_LINES


def chunk(path: str, text: str):
    _language, chunks = chunk_source(path, text)
    assert_chunks_match_file(text, chunks)
    assert uncovered_lines(text, chunks) == []
    return chunks


def chunk_holding(chunks, symbol: str):
    return next(c for c in chunks if symbol in c.symbols)


def methods(prefix: str, count: int, body: str) -> str:
    return "".join(body.format(name=f"{prefix}{i}", i=i) for i in range(count))


def test_split_parts_carry_the_enclosing_declaration_lines():
    cpp = (
        "namespace app {\n\nclass Store {\n public:\n"
        + methods("get", 20, "  int {name}() const {{\n    return {i};\n  }}\n")
        + "};\n\n}  // namespace app\n"
    )
    chunks = chunk("store.cpp", cpp)
    assert len(chunks) > 2
    assert chunks[0].header == ""
    assert chunks[-1].header == "namespace app {\nclass Store {"
    assert chunk_holding(chunks, "app.Store.get19").end_line == cpp.count("\n")


def test_trailing_comment_on_the_closing_line_does_not_turn_a_split_into_windows():
    # `}  // namespace app` shares its line with the namespace; the namespace must still
    # split at its declarations, not at arbitrary 30-line windows.
    body = methods("f", 25, "int {name}(int x) {{\n  return x + {i};\n}}\n\n")
    with_comment = chunk("a.cpp", f"namespace app {{\n\n{body}}}  // namespace app\n")
    without = chunk("a.cpp", f"namespace app {{\n\n{body}}}\n")
    assert [(c.start_line, c.end_line) for c in with_comment] == [
        (c.start_line, c.end_line) for c in without
    ]
    assert all(c.header == "namespace app {" for c in with_comment[1:])


def test_siblings_of_a_dominant_declaration_do_not_overflow_the_first_part():
    interface = "".join(f"        void M{i}();\n" for i in range(33))
    members = methods(
        "F", 30, "        public void {name}()\n        {{\n            Call({i});\n        }}\n"
    )
    source = (
        "namespace N\n{\n    public interface IBig\n    {\n" + interface + "    }\n\n"
        "    public class C\n    {\n" + members + "    }\n}\n"
    )
    chunks = chunk("big.cs", source)
    assert all(c.end_line - c.start_line + 1 <= MAX_CHUNK_LINES for c in chunks)
    assert chunk_holding(chunks, "N.IBig").end_line < chunk_holding(chunks, "N.C").start_line


def test_lines_no_node_holds_stay_in_a_chunk():
    # A docstring long enough to be split is cut at its escape sequences, the only nodes
    # inside it: the prose between them must not fall out of the index.
    prose = "".join(f"    Sentence {i} of the contract.\n" for i in range(60))
    source = (
        'def send(msg):\n    """Send one message.\n\n    A lone \\\\r is sent as \\\\r\\\\n.\n'
        + prose
        + '    Ends with \\\\n.\n    """\n    return msg\n'
    )
    chunks = chunk("mail.py", source)  # asserts that every line not blank is in a chunk
    assert any("Sentence 30 of" in c.text for c in chunks)


def test_a_long_lead_before_the_first_part_is_a_part_of_its_own():
    doc = "".join(f"    Explains case {i}.\n" for i in range(20))
    loop = "".join(f"            step_{i}(stack)\n" for i in range(45))
    source = (
        'def run(prompt):\n    """Run the steps.\n\n' + doc + '    """\n    result = None\n'
        "    with open_stack() as stack:\n        try:\n"
        + loop
        + "        finally:\n            stack.close()\n    return result\n"
    )
    chunks = chunk("steps.py", source)
    assert all(c.end_line - c.start_line + 1 <= MAX_CHUNK_LINES + MAX_HEADER_LINES for c in chunks)
    assert chunks[0].start_line == 1 and "Explains case 19." in chunks[0].text


def test_header_is_the_signature_and_the_nested_opening_line_not_setup_statements():
    loop = "".join(f"        total += item.value * {i}\n" for i in range(50))
    source = f"def process(items):\n    total = 0\n    for item in items:\n{loop}    return total\n"
    chunks = chunk("process.py", source)
    assert len(chunks) > 1
    assert chunks[0].symbols == ("process",)
    assert [c.header for c in chunks[1:]] == ["def process(items):\n    for item in items:"] * (
        len(chunks) - 1
    )


def test_header_keeps_a_multi_line_signature():
    body = "".join(f"    step_{i}(first, second)\n" for i in range(45))
    source = f"def run(\n    first,\n    second,\n):\n{body}"
    chunks = chunk("run.py", source)
    assert chunks[1].header == "def run(\n    first,\n    second,"


def test_a_row_that_opens_two_levels_is_said_once_in_a_header():
    # A class that is mostly one method whose parameters are most of it: the parameter list
    # is split under the method's header, and it opens on the method's own row.
    params = "".join(f"        option_{i}: int = {i},\n" for i in range(60))
    body = "".join(f"        self.option_{i} = option_{i}\n" for i in range(20))
    source = f"class Query:\n    def __init__(\n        self,\n{params}    ):\n{body}"
    chunks = chunk("params.py", source)
    headers = [c.header for c in chunks if c.header]
    assert headers and all(h == "class Query:\n    def __init__(" for h in headers), headers


def test_header_skips_lines_of_bare_brackets():
    members = methods(
        "M", 20, "        public int {name}()\n        {{\n            return {i};\n        }}\n"
    )
    source = "namespace Shop\n{\n    public class Cart\n    {\n" + members + "    }\n}\n"
    chunks = chunk("cart.cs", source)
    assert chunks[-1].header == "namespace Shop\n    public class Cart"


def test_decorators_stay_with_the_class_they_decorate():
    methods_src = methods("m", 30, "    def {name}(self):\n        return {i}\n\n")
    source = f"@dataclass\n@total_ordering\nclass Thing:\n{methods_src}"
    chunks = chunk("thing.py", source)
    assert chunks[0].start_line == 1 and chunks[0].symbols[0] == "Thing"
    assert chunks[1].header.endswith("class Thing:")


def test_annotations_stay_with_the_item_they_annotate():
    # Without the annotation rule the attribute line merges into the previous chunk and
    # the struct's chunk starts one line late.
    first = "fn first() {\n" + "".join(f"    step({i});\n" for i in range(18)) + "}\n"
    second = "pub struct Second {\n" + "".join(f"    f{i}: u8,\n" for i in range(8)) + "}\n"
    source = f"{first}#[derive(Debug, Clone)]\n{second}"
    chunks = chunk("items.rs", source)
    held = chunk_holding(chunks, "Second")
    assert source.split("\n")[held.start_line - 1] == "#[derive(Debug, Clone)]"


def test_elixir_doc_and_spec_stay_with_their_function():
    first = "  def first do\n" + "".join(f"    step({i})\n" for i in range(18)) + "  end\n"
    second = '  @doc "Second."\n  @spec second() :: :ok\n  def second do\n    :ok\n  end\n'
    source = f"defmodule M do\n{first}\n{second}\n{first.replace('first', 'third')}end\n"
    chunks = chunk("m.ex", source)
    held = chunk_holding(chunks, "M.second")
    assert source.split("\n")[held.start_line - 1] == '  @doc "Second."'


def test_dart_doc_comment_and_annotation_stay_with_their_method():
    # Dart's `@override` is a sibling of the method, not part of it: unattached, it and the
    # doc comment above it merged into the previous method's chunk.
    body = "".join(f"    step({i});\n" for i in range(18))
    source = (
        f"class Job {{\n  void first() {{\n{body}  }}\n\n"
        f"  /// Runs the second step.\n  @override\n  void second() {{\n{body}  }}\n}}\n"
    )
    chunks = chunk("job.dart", source)
    held = chunk_holding(chunks, "Job.second")
    assert source.split("\n")[held.start_line - 1] == "  /// Runs the second step."
    assert "Job.second" not in chunk_holding(chunks, "Job.first").symbols


def test_haskell_signature_and_haddock_stay_with_their_equation():
    # 23 two-line helpers fill the previous chunk to within one line of its merge bound,
    # so an unattached haddock would be merged there, away from `answer`.
    filler = "".join(f"helper{i} :: Int\nhelper{i} = {i}\n" for i in range(23))
    source = f"module M where\n{filler}-- | The answer.\nanswer :: Int\nanswer = 42\n"
    chunks = chunk("m.hs", source)
    held = chunk_holding(chunks, "answer")
    assert source.split("\n")[held.start_line - 1] == "-- | The answer."


def test_scala_indented_body_does_not_swallow_the_next_definition():
    body = "".join(f"    step({i})\n" for i in range(18))
    source = f"object Jobs {{\n  def first(): Unit =\n{body}\n  def second(): Unit =\n{body}}}\n"
    chunks = chunk("jobs.scala", source)
    held = chunk_holding(chunks, "Jobs.second")
    assert source.split("\n")[held.start_line - 1] == "  def second(): Unit ="
    assert held.header == "object Jobs {"  # split at the definitions, not into windows
    assert "Jobs.second" not in chunk_holding(chunks, "Jobs.first").symbols


def test_small_neighbours_merge_and_a_large_one_stands_alone():
    small = "".join(f"def small_{i}():\n    return {i}\n\n\n" for i in range(4))
    large = "def large():\n" + "".join(f"    x_{i} = {i}\n" for i in range(30))
    chunks = chunk("mix.py", small + large)
    assert chunks[0].symbols == ("small_0", "small_1", "small_2", "small_3")
    assert chunks[1].symbols == ("large",)


def test_symbols_are_distinct_names_before_the_cap():
    # A signature and its equation are one name: twelve functions must all be listed,
    # not the first eight counted twice.
    functions = "".join(f"f{i} :: Int\nf{i} = {i}\n" for i in range(12))
    chunks = chunk("m.hs", f"module M where\n{functions}")
    assert [s for c in chunks for s in c.symbols] == [f"f{i}" for i in range(12)]


def test_a_line_that_opens_or_closes_a_split_declaration_is_no_chunk_of_its_own():
    # Each of these left a chunk of one to three lines beside a declaration too large for
    # one chunk, and BM25 ranked such a line above the code it belongs to.
    serves = "".join(f"    def serve{i}(env)\n      env[:path] = {i}\n    end\n" for i in range(16))
    adds = "".join(f"  table.add('/r{i}', {i});\n  table.log({i});\n" for i in range(30))
    explained = "".join(f"    Line {i} of a long explanation.\n" for i in range(45))
    cases = (
        (
            "static.rb",
            f"# frozen_string_literal: true\n\nrequire 'time'\n\nmodule Rack\n"
            f"  # Serves files.\n  class Static\n{serves}  end\nend\n",
            "require 'time'",
        ),
        ("route.js", f"'use strict';\n\nfunction route(table) {{\n{adds}}}\n", "'use strict';"),
        ("parse.py", f'def parse(text):\n    """Read.\n\n{explained}    """\n', '    """'),
    )
    for path, source, sliver in cases:
        chunks = chunk(path, source)
        assert len(chunks) > 1, path
        spans = [(c.start_line, c.end_line) for c in chunks]
        assert all(end - start >= 3 for start, end in spans), (path, spans)
        assert any(sliver in c.text.split("\n") for c in chunks), path


def test_a_closing_word_counts_whole_not_as_the_start_of_a_name():
    from wherein.chunking.chunker import _closes

    for line in ("end", "  end  # of the class", "fi", "done", "});", '    """', "#endif // A"):
        assert _closes(line), line
    for line in ("endpoint = make()", "files = list()", "done_callback(x)", "end_time = 3"):
        assert not _closes(line), line
