"""Cut a source file into chunks along its structure.

Code is parsed with tree-sitter and cut at top-level declarations. Small
neighbours are merged up to a size bound (the chunk is labelled with all their
names: for a small file that label is the module's only description). A large
declaration is split at its nested children, each part remembering the
enclosing header line(s) so an excerpt stays oriented; a doc comment opens the first
part of what it documents, or, too long for that, names it in the comment's own parts.
Markdown is cut at its headings; any other text falls back to windows of lines.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, replace

from wherein.chunking.conditionals import CONDITIONAL_GRAMMARS, without_conditionals
from wherein.chunking.languages import (
    definition_query,
    grammar_of,
    language_for,
    language_of,
    parser_for,
)
from wherein.chunking.markdown import heading_rows, heading_text
from wherein.chunking.timed_parse import parse_in_time
from wherein.chunking.unclosed import Unclosed, unclosed_functions
from wherein.inline_tests import in_test_module

__all__ = ["Chunk", "Declaration", "chunk_source", "declarations"]

# A chunk is meant to be read whole: the default excerpt shows 40 lines.
MAX_CHUNK_LINES = 40
# A file of these languages with a line longer than this is cut into windows without a
# parse: their grammar parses a long line in time quadratic in its length (Scala: 14 KB of
# `a = 1; ` in 0.33 s, 56 KB in 5.2 s, 312 KB in 194 s; each other grammar bundled took
# 4-5x the time for 4x the line), and such a line is data, not declarations.
PARSE_MAX_LINE_CHARS = 10_000
QUADRATIC_LINE_LANGUAGES = frozenset({"scala"})
# Long lines make few lines heavy; ~2,400 characters is about 600 tokens.
MAX_CHUNK_CHARS = 2400
# Neighbours merge only while the merged chunk stays this small, so one vector
# does not have to describe many unrelated declarations.
MERGE_TARGET_LINES = 24
MAX_HEADER_LINES = 3
# A span of at most this many lines left between two larger ones (`module Rack` before the
# class it opens, a docstring's closing quotes after a split, `'use strict';`) is a sliver:
# alone, BM25's length normalisation ranks a lone matching line above the code it belongs
# to (7-12% of the chunks of Python, Ruby, JavaScript and TypeScript packages were such).
SLIVER_LINES = 3
# A sliver opening with one of these (a word of them whole: `end`, not `endpoint`) closes
# what came before it, and joins that.
CLOSERS = ("}", ")", "]", '"""', "'''", "end", "@end", "#endif", "fi", "esac", "done")
MAX_SYMBOLS = 16
# How many of a declaration's children are looked through for a declarator's name.
FIELD_SCAN_CHILDREN = 8 * MAX_SYMBOLS
# A name is qualified by at most this many names in all, the innermost (C++ code nests
# namespaces, classes and methods seven deep).
MAX_QUALIFIERS = 10
# An error node with more children than this is what tree-sitter's query cursor crosses in
# time square in their number (Objective-C's recovery from 20,000 nested `^{`: 2 s, 100,000:
# a minute; the same count of children in a node without error: milliseconds): such a file
# is chunked without names.
MAX_ERROR_CHILDREN = 5_000
# Braces nested deeper than this: the declaration query's time grows with the nesting too
# (20,000 nested Objective-C methods: 4.4 s; Ruby's 100,000 nested blocks: 11 s), and no
# code nests so deep, so such a file is chunked without names.
MAX_BRACE_DEPTH = 500
# The declaration query starts no match deeper than this in the tree. Past a depth of 65,536
# tree-sitter's query cursor takes time cubic in it, whatever nests (Ruby's `def`s, Elixir's
# `do` blocks, Bash's subshell functions, Clojure's lists: 100,000 levels in under a megabyte
# took 36-200 s), and braces are only one way to nest. The deepest declaration in 35,000
# files of 20 languages (the probe's packages, React Native, the standard library) was 87
# nodes down.
MAX_DECLARATION_DEPTH = 1_000
WINDOW_LINES = 30
# A body is the child holding at least this share of its parent's lines.
BODY_SHARE = 0.5


@dataclass(frozen=True)
class Chunk:
    """A slice of one file: 1-based inclusive lines, the names declared in it, its text."""

    start_line: int
    end_line: int
    symbols: tuple[str, ...]
    kind: str  # "code" | "markdown" | "text"
    text: str
    header: str = ""  # enclosing declaration line(s) when the chunk is part of a split one
    # Those of `symbols` declared here only without a body (`Declaration.prototype`), or
    # only documented here: a window of a doc comment too long to share a chunk with them.
    prototypes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Span:
    start: int  # 0-based rows, inclusive
    end: int
    header_rows: tuple[int, ...] = ()
    # The first row of the declaration whose doc comment the span holds, and nothing else.
    documents: int = -1


@dataclass(frozen=True)
class Declaration:
    """A named declaration: its first row (0-based), its name qualified by the declarations
    that enclose it (`Widget.draw`), and how many do.

    A namespace (a query's @namespace: C++'s `namespace re2 {`, PHP's `namespace Monolog;`)
    only qualifies the names inside it. Every file of a project opens with the same one: as
    a chunk's name it made each file's preamble a definition of the project's name, first
    for any query that named the project.

    A prototype (a query's @prototype: a C prototype, a method declared in its class, a
    macro that only renames, an interface's or abstract method, a trait's bodiless `fn`, a
    TypeScript overload) is declared here and defined elsewhere: a header's copy of each
    name, or an interface's, must not outrank the definition it announces.
    """

    row: int
    qualified: str
    depth: int
    namespace: bool = False
    prototype: bool = False


def chunk_source(path: str, text: str) -> tuple[str, list[Chunk]]:
    """Chunk one file's text. Returns the language label and the chunks in file order."""
    lines = _split_lines(text)
    if not lines:
        return language_for(path) or "text", []
    language = language_of(path, text)
    if language == "markdown":
        return language, _build(lines, _markdown_spans(lines), (), "markdown")
    grammar = grammar_of(language, text) if language else None
    parser = parser_for(grammar) if grammar else None
    if parser is None:
        return language or "text", _text_windows(lines)
    if grammar in QUADRATIC_LINE_LANGUAGES and max(map(len, lines)) > PARSE_MAX_LINE_CHARS:
        return language, _text_windows(lines)
    data = text.encode("utf-8", errors="surrogatepass")
    tree = parse_in_time(parser, data)
    if tree is None:  # a parse that fell too far behind its input: hostile, or data
        return language, _text_windows(lines)
    try:
        definitions = _definitions(tree.root_node, grammar, text)
        if grammar in CONDITIONAL_GRAMMARS and tree.root_node.has_error:
            again = _named_around_conditionals(parser, grammar, data, text, definitions)
            if again is not None:
                tree, definitions = again
        unclosed = unclosed_functions(tree.root_node, lines, grammar, {d.row for d in definitions})
        if unclosed:
            found = [Declaration(u.row, u.name, 0) for u in unclosed]
            definitions = sorted([*definitions, *found], key=lambda d: (d.row, d.depth))
        cutter = _Cutter(lines, unclosed)
        spans = cutter.cover(
            cutter.group(cutter.units(tree.root_node), ()), 0, len(lines) - 1, (), ()
        )
        spans = cutter.without_slivers(spans)
    except RecursionError:  # nested past what the cutter's recursion reaches
        return language, _text_windows(lines)
    return language, _build(lines, spans, definitions, "code")


def _named_around_conditionals(parser, grammar: str, data: bytes, text: str, definitions):
    """The parse of `data` (`text` encoded) with its conditional lines blanked and its
    declarations, when it names more than `definitions`; else None
    (`wherein.chunking.conditionals`). `_definitions` reads its guard, the nesting of braces,
    off `text`: blanking changes no brace that matters to it."""
    blanked = without_conditionals(data)
    again = None if blanked is None else parse_in_time(parser, blanked)
    if again is None:
        return None
    named = _definitions(again.root_node, grammar, text)
    return (again, named) if len(named) > len(definitions) else None


def _text_windows(lines: list[str]) -> list[Chunk]:
    """Windows of lines with no declarations: text, or code that cannot be parsed in time."""
    return _build(lines, _windows(lines, 0, len(lines) - 1), (), "text")


def _split_lines(text: str) -> list[str]:
    """Lines as tree-sitter counts rows: split on '\\n' only."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _end_row(node) -> int:
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


def _units(parent, lines: list[str]) -> list[tuple[int, int, object]]:
    """The parent's named children as row spans, comments attached to what follows."""
    units: list[list] = []  # [start, end, node, node's height in rows]
    pending_comment: list | None = None
    last_row = len(lines) - 1
    for child in parent.named_children:
        # Each point access builds a tuple: read them once (this loop runs per node).
        start = child.start_point.row
        end_row, column = child.end_point
        own_end = end_row - 1 if column == 0 and end_row > start else end_row  # _end_row
        end = min(own_end, last_row)
        # Some grammars (Scala's indented blocks) end a node on the next line's
        # indentation, after blank lines; those lines belong to what comes next.
        if end > start and end == end_row and not lines[end][:column].strip():
            end -= 1
            while end > start and not lines[end].strip():
                end -= 1
        height = own_end - start
        if units and start <= units[-1][1]:  # shares a line with the previous unit
            last = units[-1]
            last[1] = max(last[1], end)
            # Keep the taller node so the unit still splits along its structure: a
            # trailing `}  // namespace app` must not turn a namespace into windows.
            if height > last[3]:
                last[2], last[3] = child, height
            continue
        unit = [start, end, child, height]
        if pending_comment is not None and start <= pending_comment[1] + 1:
            unit[0] = pending_comment[0]
            units[-1] = unit
        else:
            units.append(unit)
        pending_comment = unit if _leads(child) else None
    return [(u[0], u[1], u[2]) for u in units]


# Siblings that annotate the declaration after them: Rust `#[derive(...)]`, decorators
# of TypeScript class members, Dart's `@override`, Haskell haddocks and type signatures.
# (Python wraps its decorators in the definition node, Java its annotations in modifiers.)
_ANNOTATIONS = frozenset({"annotation", "attribute_item", "decorator", "haddock", "signature"})


def _closes(line: str) -> bool:
    """Whether the line opens with a word or mark of `CLOSERS` (`end`, not `endpoint`)."""
    text = line.strip()
    for closer in CLOSERS:
        if text.startswith(closer):
            rest = text[len(closer) : len(closer) + 1]
            if not closer[-1].isalnum() or not (rest.isalnum() or rest == "_"):
                return True
    return False


def _leads(node) -> bool:
    """Whether the node belongs with what follows it: a comment or an annotation."""
    if "comment" in node.type or node.type in _ANNOTATIONS:
        return True
    # Elixir's `@doc`, `@spec` and `@impl` are module attributes written before a `def`.
    if node.type == "unary_operator":
        operator = node.child_by_field_name("operator")
        return operator is not None and operator.type == "@"
    return False


class _Cutter:
    """Groups sibling units into chunks, splitting any unit that is too large."""

    def __init__(self, lines: list[str], unclosed: list[Unclosed] | None = None) -> None:
        self.lines = lines
        # The outermost functions an error swallowed (`wherein.chunking.unclosed`): each a
        # unit of its error's, split at what lies in it under its own header.
        self.unclosed = _outermost(unclosed or [])
        self.unclosed_ends = [u.end for u in self.unclosed]
        # Prefix sums of line lengths: `chars` is asked for every candidate merge.
        self.offsets = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))

    def chars(self, start: int, end: int) -> int:
        return self.offsets[end + 1] - self.offsets[start]

    def fits(self, start: int, end: int, limit_lines: int) -> bool:
        return end - start + 1 <= limit_lines and self.chars(start, end) <= MAX_CHUNK_CHARS

    def group(self, units, header_rows: tuple[int, ...]) -> list[_Span]:
        spans: list[_Span] = []
        current: list[int] | None = None
        for start, end, node in units:
            if not self.fits(start, end, MAX_CHUNK_LINES):
                if current:
                    spans.append(_Span(current[0], current[1], header_rows))
                    current = None
                spans.extend(self.split(start, end, node, header_rows))
                continue
            if current and self.fits(current[0], end, MERGE_TARGET_LINES):
                current[1] = end
                continue
            if current:
                spans.append(_Span(current[0], current[1], header_rows))
            current = [start, end]
        if current:
            spans.append(_Span(current[0], current[1], header_rows))
        return spans

    def units(self, parent) -> list[tuple[int, int, object]]:
        """`_units` of the parent; of an error, with each function it swallowed one unit."""
        units = _units(parent, self.lines)
        inside = self.swallowed_by(parent)
        return _with_unclosed(units, inside) if inside else units

    def swallowed_by(self, node) -> list[Unclosed]:
        """The functions lying in `node` when it is an error (found by bisection: a file's
        errors are many, and so may its functions be)."""
        if node.type != "ERROR" or not self.unclosed:
            return []
        first = bisect.bisect_right(self.unclosed_ends, node.start_point.row - 1)
        last = bisect.bisect_right(self.unclosed_ends, _end_row(node))
        return [u for u in self.unclosed[first:last] if u.start >= node.start_point.row]

    def split(self, start: int, end: int, node, header_rows: tuple[int, ...]) -> list[_Span]:
        """Split an oversized unit at its body's children, or into line windows."""
        if isinstance(node, _Swallowed):
            return self.split_swallowed(start, end, node, header_rows)
        top = node.start_point.row if node is not None else start
        if top > start and not self.fits(start, top, MAX_CHUNK_LINES):
            return self.long_lead(start, top, end, node, header_rows)
        body = _body_of(node) if node is not None else None
        if body is not None and self.swallowed_by(node):
            body = node  # its swallowed functions are its parts, not its largest child's
        children = self.units(body) if body is not None else []
        children = [
            (max(s, start), min(e, end), n) for s, e, n in children if e >= start and s <= end
        ]
        if len(children) < 2:
            return [_Span(s, e, header_rows) for s, e in self.lead_windows(start, top, end)]
        own_header = self.header_rows(node, body, children[0][0], max(node.start_point.row, start))
        inner = self.group(children, header_rows + own_header)
        first, first_end, first_node = children[0]
        if (
            top > start
            and first - start > MAX_HEADER_LINES
            and not self.fits(start, inner[0].end, MAX_CHUNK_LINES)
        ):
            # A doc comment over the declaration, with the signature too long to be a
            # header, would be cut into parts of its own, the comment's without a name: it
            # opens the first part instead, counted in it, so that part stays in bounds; or,
            # with the lines to the first part too many for one chunk, documents it. (A
            # long signature alone keeps its parts: Python's bench fell when it took the
            # room its class's short attributes had joined.)
            if self.fits(start, first, MAX_CHUNK_LINES):
                children[0] = (start, first_end, first_node)
                inner = self.group(children, header_rows + own_header)
            else:
                return self.long_lead(start, top, end, node, header_rows)
        return self.cover(inner, start, end, header_rows, header_rows + own_header)

    def split_swallowed(self, start: int, end: int, node, header_rows) -> list[_Span]:
        """The parts of a function an error swallowed: what lies in its body, each part
        under its header line, the header and its comment opening the first."""
        own = (*header_rows, node.function.row)
        parts = [(max(s, start), min(e, end), n) for s, e, n in node.units if s <= end]
        if len(parts) < 2:
            windows = _window_rows(self.lines, start, end)
            return [_Span(s, e, header_rows if s <= node.function.row else own) for s, e in windows]
        return self.cover(self.group(parts, own), start, end, header_rows, own)

    def long_lead(self, start: int, top: int, end: int, node, header_rows) -> list[_Span]:
        """The parts of a unit whose lead (a doc comment with its examples) does not fit in
        a chunk with the declaration's first part: windows of the lead, each documenting
        the declaration (`_build` names it there as a prototype), the last joining the
        declaration's first part where the two fit, then the declaration's parts."""
        docs = [
            _Span(s, e, header_rows, documents=top)
            for s, e in _window_rows(self.lines, start, top - 1)
        ]
        parts = self.group([(top, end, node)], header_rows)
        if self.fits(docs[-1].start, parts[0].end, MAX_CHUNK_LINES):
            parts[0] = replace(parts[0], start=docs.pop().start)
        return docs + parts

    def lead_windows(self, start: int, top: int, end: int) -> list[tuple[int, int]]:
        """Windows of start..end, a unit that cannot be split along its structure; a lead
        before its declaration's first row `top` (its doc comment) opens the first window
        with as much of the declaration as fits, not a window of comment alone."""
        if top <= start:
            return _window_rows(self.lines, start, end)
        stop = top
        while stop < end and self.fits(start, stop + 1, MAX_CHUNK_LINES):
            stop += 1
        return [(start, stop), *_window_rows(self.lines, stop + 1, end)]

    def cover(self, spans, start, end, outer, inner) -> list[_Span]:
        """The spans, widened so each line of start..end that is not blank is in one.

        Between a unit's parts lie lines no part holds: the unit's own header lines
        (`def f(x):` and its docstring) before the first, the closing lines after the
        last, and tokens that are no node of their own (C#'s `else`, OCaml's `;;`, the
        text of a docstring between its escape sequences). Such a gap joins the part
        beside it (the header opens the first part, which then needs no header of its own)
        while that part stays within bounds; a gap of a few lines always does; a larger
        one is a part of its own (`outer` header rows before the first part, `inner` after).
        """
        out: list[_Span] = []
        row = start  # the first row no span holds yet
        for index, span in enumerate([*spans, None]):
            gap_end = end if span is None else span.start - 1
            if gap_end >= row and any(self.lines[r].strip() for r in range(row, gap_end + 1)):
                small = gap_end - row + 1 <= MAX_HEADER_LINES
                if index == 0 and span is not None:  # before the first part: its header
                    if small or self.fits(row, span.end, MAX_CHUNK_LINES):
                        span = replace(span, start=row, header_rows=outer)
                    else:
                        out.extend(
                            _Span(s, e, outer) for s, e in _window_rows(self.lines, row, gap_end)
                        )
                elif out and (small or self.fits(out[-1].start, gap_end, MAX_CHUNK_LINES)):
                    out[-1] = replace(out[-1], end=gap_end)
                elif span is not None and self.fits(row, span.end, MAX_CHUNK_LINES):
                    span = replace(span, start=row)
                else:
                    header = outer if not out else inner
                    out.extend(
                        _Span(s, e, header) for s, e in _window_rows(self.lines, row, gap_end)
                    )
            elif index == 0 and span is not None:  # the first part holds the header lines
                span = replace(span, header_rows=outer)
            if span is not None:
                out.append(span)
                row = span.end + 1
        return out

    def without_slivers(self, spans: list[_Span]) -> list[_Span]:
        """The spans, each sliver joined to a neighbour where the two stay within bounds:
        the one after it (which it opens: `module Rack`, a constant its code reads), unless
        it ends what came before it: it closes it (`CLOSERS`), it is the last part of the
        declaration split before it (a class's last short method), or nothing follows."""
        out: list[_Span] = []
        pending = list(spans)
        for index, span in enumerate(pending):
            if span.end - span.start + 1 <= SLIVER_LINES and len(pending) > 1:
                after = pending[index + 1] if index + 1 < len(pending) else None
                before = out[-1] if out else None
                ends = before is not None and (
                    _closes(self.lines[span.start])
                    or (
                        span.header_rows
                        and span.header_rows == before.header_rows
                        and (after is None or after.header_rows != span.header_rows)
                    )
                )
                if (
                    after is not None
                    and not ends
                    and self.fits(span.start, after.end, MAX_CHUNK_LINES)
                ):
                    header = tuple(row for row in after.header_rows if row < span.start)
                    pending[index + 1] = replace(after, start=span.start, header_rows=header)
                    continue
                # What it ends may fill a whole chunk; anything else joins only as
                # neighbours merge (a lone last declaration keeps a chunk of its own).
                limit = MAX_CHUNK_LINES if ends else MERGE_TARGET_LINES
                if before is not None and self.fits(before.start, span.end, limit):
                    out[-1] = replace(before, end=span.end)
                    continue
            out.append(span)
        return out

    def header_rows(self, node, body, first_child: int, top: int) -> tuple[int, ...]:
        """The rows that open the node and each level down to its body.

        That is the signature and lines like `switch r.Method {`, not the statements
        that happen to precede the body (`ctx, cancel := ...`), which are content.
        """
        path = []  # from the body up to the node's child
        current = body
        while current is not None and current != node:
            path.append(current)
            current = current.parent
        path.reverse()
        if not path:  # the node is its own body: everything before its first part
            rows = set(range(top, first_child))
        else:
            outer = path[0]
            rows = {top, *range(top, outer.start_point.row)}
            for child in node.named_children:  # an `if` branch before an `else` body
                child_start, child_end = child.start_point.row, _end_row(child)
                if child != outer and top < child_start < child_end:
                    rows -= set(range(child_start, child_end + 1))
            for inner, below in zip(path, path[1:] + [None], strict=True):
                row = inner.start_point.row
                # A nested declaration (`public class Cart` inside a namespace) opens on
                # its own line; a statement list or block starts with content instead.
                nested = below is not None and row < below.start_point.row
                if _opens_itself(inner) or (nested and not _is_container(inner)):
                    rows.add(row)
        # A line of bare brackets (Allman-style `{`) says nothing about what it opens.
        kept = sorted(row for row in rows if row >= top and self.lines[row].strip(_BRACKETS))
        if len(kept) > MAX_HEADER_LINES:  # the first line names it; the last is nearest
            kept = kept[:1] + kept[1 - MAX_HEADER_LINES :]
        return tuple(kept)


_BRACKETS = " \t\r{}()[]:;,"


@dataclass(frozen=True)
class _Swallowed:
    """The unit of a function an error swallowed: the function, and the units in its body."""

    function: Unclosed
    units: tuple


def _outermost(unclosed: list[Unclosed]) -> list[Unclosed]:
    """Those of the functions (in file order) no other one holds."""
    out: list[Unclosed] = []
    for function in unclosed:
        if not out or function.start > out[-1].end:
            out.append(function)
    return out


def _with_unclosed(units, functions: list[Unclosed]) -> list[tuple[int, int, object]]:
    """The units with each of the functions (in file order, none in another) one unit: those
    starting in its body are its parts (cut at its end), one reaching into it ends before it.
    Rows left in no unit are covered as gaps."""
    out: list[tuple[int, int, object]] = []
    index = 0
    for function in functions:
        while index < len(units) and units[index][0] < function.start:
            start, end, node = units[index]
            out.append((start, min(end, function.start - 1), node))
            index += 1
        parts = []
        while index < len(units) and units[index][0] <= function.end:
            start, end, node = units[index]
            if start > function.body:
                parts.append((start, min(end, function.end), node))
            index += 1
        out.append((function.start, function.end, _Swallowed(function, tuple(parts))))
    # A unit reaching past the last function would overlap what follows it: units after it
    # start later still, and those that begin inside a function were taken above.
    out.extend(units[index:])
    return out


def _is_container(node) -> bool:
    """Whether the node is a list of parts (`block`, `statement_list`, `class_body`)."""
    return node.type.endswith(("block", "list", "body"))


def _opens_itself(node) -> bool:
    """Whether the node starts with its own tokens (`for`, `switch`, `{`) before its parts."""
    children = node.named_children
    if not children:
        return False
    first = children[0].start_point
    return (node.start_point.row, node.start_point.column) < (first.row, first.column)


def _body_of(node):
    """The descendant holding the node's parts: a class body, a block, a list."""
    current = node
    while True:
        children = current.named_children
        if not children:
            return current if current is not node else None
        rows = _end_row(current) - current.start_point.row + 1
        largest = max(children, key=lambda c: _end_row(c) - c.start_point.row)
        share = (_end_row(largest) - largest.start_point.row + 1) / rows
        if len(children) >= 2 and share < BODY_SHARE:
            return current
        if share < BODY_SHARE or not largest.named_children:
            return current
        # Siblings beside the largest child would be glued to the first or last part and
        # could push it past MAX_CHUNK_LINES: split here so they are parts of their own.
        if _rows_beside(current, largest) > MAX_HEADER_LINES:
            return current
        current = largest


def _rows_beside(parent, child) -> int:
    """Rows of the parent's other parts below its first line: statements, not a signature."""
    first = parent.start_point.row
    rows: set[int] = set()
    for other in parent.named_children:
        if other != child and other.start_point.row > first:
            rows.update(range(other.start_point.row, _end_row(other) + 1))
    return len(rows)


def _definitions(root, language: str, text: str) -> list[Declaration]:
    query = definition_query(language)
    if query is None or _wide_error(root) or _brace_depth(text) > MAX_BRACE_DEPTH:
        return []
    return declarations(root, query)


_BRACE = re.compile(r"[{}]")


def _brace_depth(text: str) -> int:
    """How deep `{` nests in `text` (strings and comments counted too: a guard, not a parse)."""
    if text.count("{") <= MAX_BRACE_DEPTH:
        return 0  # cannot nest deeper than it opens
    depth = deepest = 0
    for brace in _BRACE.finditer(text):
        if brace.group() == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


def _wide_error(root) -> bool:
    """Whether an error node under `root` has more than MAX_ERROR_CHILDREN children. Only
    branches that hold an error are entered, so a tree without one costs a flag."""
    stack = [root] if root.has_error else []
    while stack:
        node = stack.pop()
        if node.type == "ERROR" and node.child_count > MAX_ERROR_CHILDREN:
            return True
        stack.extend(child for child in node.children if child.has_error)
    return False


def declarations(root, query, depth: int = MAX_DECLARATION_DEPTH) -> list[Declaration]:
    """The declarations a compiled declaration `query` finds under the syntax node `root`,
    no deeper than `depth` nodes below it, each named by what encloses it, in file order
    (scripts/bench_queries.py compares two queries by them)."""
    from tree_sitter import QueryCursor

    # Each declaration node's names, the pattern that named it first and that name's node.
    # The same pattern naming it again at another declarator (`int x, y;`, `var a, b int`)
    # adds that name (`_another_declarator`); any other name for it is left out.
    names: dict[int, tuple[list[str], object, int, object]] = {}
    # The ids of the nodes some pattern captured as @namespace, and as @prototype.
    namespaces: set[int] = set()
    prototypes: set[int] = set()
    # And as @import: a name bound to another module (`const express = require("express")`)
    # is that module's name, declared again in every file that uses it.
    imports: set[int] = set()
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(depth)
    for pattern, captures in cursor.matches(root, predicate=_predicate):
        definition = captures.get("definition")
        if "import" in captures:
            imports.add(captures["import"][0].id)
        if "namespace" in captures:
            namespaces.add(captures["namespace"][0].id)
        if "prototype" in captures:
            prototypes.add(captures["prototype"][0].id)
        name = captures.get("name")
        receiver = captures.get("receiver")
        qualified = captures.get("qualified_name")
        if qualified:
            name, receiver = _unqualified(qualified[0])
        declarator = captures.get("declarator")
        if declarator:
            name, receiver = _unqualified(_declared(declarator[0]))
        named = captures.get("named")
        if named:
            own = _own_name(named[0])
            name = None if own is None else [own]
        if definition and name:
            node = definition[0]
            text = name[0].text.decode("utf-8", errors="replace")
            if not text:  # a name the parser made up to recover from an error: none
                continue
            # A method declared outside its type (Go receivers, C++ `Foo::bar`,
            # Ruby `def self.x`) names the type in an optional @receiver capture.
            if receiver:
                text = f"{receiver[0].text.decode('utf-8', errors='replace')}.{text}"
            known = names.setdefault(node.id, ([], node, pattern, name[0]))
            if not known[0] or (
                len(known[0]) < MAX_SYMBOLS  # a chunk keeps no more; and `_field_of` scans
                and known[2] == pattern
                and text not in known[0]
                and _another_declarator(known[3], name[0])
            ):
                known[0].append(text)
    # What encloses each declaration, by byte ranges: in a syntax tree a node's range lies
    # within its ancestors' and no other's (of two alike, the one with more below it is
    # outer). Walking `.parent` instead cost time cubic in the nesting (tree-sitter finds a
    # parent from the root down): 28 s for 1,000 nested JavaScript functions.
    ordered = sorted(
        (named[:2] for node_id, named in names.items() if node_id not in imports),
        key=lambda named: (named[1].start_byte, -named[1].end_byte, -named[1].descendant_count),
    )
    found = []
    open_: list[tuple[int, list[str]]] = []  # (end byte, qualified path) of what encloses
    for texts, node in ordered:
        while open_ and open_[-1][0] < node.end_byte:
            open_.pop()
        # The innermost few enclosing names qualify it: whole paths, copied at each level,
        # took memory square in the nesting (20,000 nested `@implementation`s: 5 GB).
        outer = open_[-1][1][1 - MAX_QUALIFIERS :] if open_ else []
        for text in texts:
            found.append(
                Declaration(
                    node.start_point.row,
                    ".".join([*outer, text]),
                    len(open_),
                    namespace=node.id in namespaces,
                    prototype=node.id in prototypes,
                )
            )
        # What it encloses is qualified by its first name (`int x, y;` encloses nothing).
        open_.append((node.end_byte, [*outer, texts[0]]))
    found.sort(key=lambda d: (d.row, d.depth))
    return found


def _another_declarator(first, other) -> bool:
    """Whether the name node `other` stands where `first` does, in another declarator of one
    declaration: the same field of the same parent (C's `int x, y;`, Go's `var x, y int`), or
    a parent of its own of the first's kind (Java's `variable_declarator`s). Not an
    identifier elsewhere in it that an unanchored pattern also matched (the `Circle` of
    Dart's `static final Circle origin = Circle.zero();`)."""
    if other.type != first.type or other.parent is None or first.parent is None:
        return False
    if other.parent.id != first.parent.id:
        return other.parent.type == first.parent.type
    field = _field_of(first)
    return field is not None and field == _field_of(other)


def _field_of(node) -> str | None:
    """The field `node` holds in its parent; None for no field, or for a node past the parent's
    first FIELD_SCAN_CHILDREN children (a declaration's first MAX_SYMBOLS names lie well
    within them, and one of 60,000 declarators must not be scanned whole for each)."""
    parent = node.parent
    for index in range(min(parent.child_count, FIELD_SCAN_CHILDREN)):
        if parent.child(index).id == node.id:
            return parent.field_name_for_child(index)
    return None


def _unqualified(node) -> tuple[list, list | None]:
    """([name], [receiver] or None) of a @qualified_name capture: a name that may be
    qualified (`ns::Widget::draw`, `Box<T>::get`, `parse<int>`), followed down its `name`
    fields to the innermost name, whose receiver is the last `scope` beside them (that
    scope's own name when it has one: `Box`, not `Box<T>`). Done here, not by the query's
    patterns: spelled out there for each declarator, the shapes took a third of C++'s
    query compile time, which every indexing worker pays."""
    receiver = None
    while (inner := node.child_by_field_name("name")) is not None:
        scope = node.child_by_field_name("scope")
        if scope is not None:
            receiver = [scope.child_by_field_name("name") or scope]
        node = inner
    return [node], receiver


def _declared(node):
    """The name a @declarator capture declares, a C or C++ declarator (`*name[4] = {0}`,
    `&name`, `(*name)(int)`): its `declarator` fields followed down, and the one part of
    a declarator that has no such field (`&name`, `(name)`)."""
    while True:
        inner = node.child_by_field_name("declarator")
        if inner is None and node.type.endswith("_declarator") and node.named_child_count:
            inner = node.named_children[-1]
        if inner is None:
            return node
        node = inner


def _own_name(node):
    """The name of a @named capture, a declaration whose name the query leaves to the
    chunker: its `name` field (a macro's, a type's; but an include guard with no value and
    a `struct x` with no body name nothing), the name a typedef's macro gives
    (`NS_ENUM(NSInteger, Mode)`), what its `declarator` field declares (a function, a
    typedef, a variable), or its first identifier (an Objective-C class, protocol or
    method: the selector's first keyword), looking into a property's declaration for the
    declarator there."""
    if node.type == "preproc_def" and node.child_by_field_name("value") is None:
        return None
    if node.type == "macro_type_specifier":  # a typedef the grammar could not parse whole
        return _macro_type_name(node)
    if node.type.endswith("_specifier") and node.child_by_field_name("body") is None:
        return None  # `struct x` without a body uses the tag; it declares nothing
    name = node.child_by_field_name("name")
    if name is not None:
        return name
    kind = node.child_by_field_name("type")
    if kind is not None and kind.type == "macro_type_specifier":
        return _macro_type_name(kind)
    declarator = node.child_by_field_name("declarator")
    if declarator is not None:
        return _declared(declarator)
    for child in node.named_children:
        if child.type == "identifier":
            return child
        if child.type == "struct_declaration":
            declarators = [c for c in child.named_children if c.type == "struct_declarator"]
            return _declared(declarators[0]) if declarators else None
    return None


def _macro_type_name(node):
    """The name `typedef NS_ENUM(NSInteger, Mode) {...}` (or `NS_OPTIONS`) declares: the
    grammar takes the values for the typedef's declarators (or the whole typedef for an
    error) and keeps the name in an error node inside the macro's arguments."""
    for child in node.named_children:
        if child.type == "ERROR" and child.named_child_count:
            last = child.named_children[-1]
            return last if last.type == "identifier" else None
    return None


def _predicate(name: str, args, _pattern: int, captures) -> bool:
    """The queries' own predicates: `(#parent-type? @capture type ...)`, whether the
    captured node's parent is of one of those types, `(#holds-only? @capture type ...)`,
    whether each of its named children is (an optional capture that matched nothing holds
    nothing), and `(#holds-none? @capture type ...)`, whether none is (Kotlin's bodiless
    `fun`: its body is a child no field names). Another name is refused."""
    own = ("parent-type?", "holds-only?", "holds-none?")
    if name not in own or not args or args[0][1] != "capture":
        return False
    types = {value for value, kind in args[1:] if kind == "string"}
    nodes = captures.get(args[0][0])
    if name == "holds-only?":
        return not nodes or all(child.type in types for child in nodes[0].named_children)
    if name == "holds-none?":
        return not nodes or not any(child.type in types for child in nodes[0].named_children)
    if not nodes or nodes[0].parent is None:
        return False
    return nodes[0].parent.type in types


def _build(lines, spans, definitions, kind: str) -> list[Chunk]:
    chunks = []
    headings = heading_rows(lines) if kind == "markdown" else []
    rows = [d.row for d in definitions]  # sorted: each span takes a slice, not a scan
    for span in spans:
        text = "\n".join(lines[span.start : span.end + 1])
        if not text.strip():
            continue
        prototypes: tuple[str, ...] = ()
        if kind == "markdown":
            first = bisect.bisect_left(headings, span.start)
            last = bisect.bisect_right(headings, span.end)
            symbols = tuple(heading_text(lines[row]) for row in headings[first:last])
            symbols = symbols[:MAX_SYMBOLS]
        else:
            first = bisect.bisect_left(rows, span.start)
            last = bisect.bisect_right(rows, span.end)
            inside = definitions[first:last]
            if span.documents >= 0:  # a doc comment names what it documents, without a body
                first = bisect.bisect_left(rows, span.documents)
                last = bisect.bisect_right(rows, span.documents)
                inside += [replace(d, prototype=True) for d in definitions[first:last]]
            symbols = _symbols_in(inside)
            if symbols:
                prototypes = _prototypes_in(inside, symbols)
            else:
                symbols = _test_owner(span, definitions, rows)
        # A part that opens with its doc comment holds its declaration's lines itself. A row
        # that opens two levels (`def __init__(` and its parameters) is said once.
        above = [row for row in dict.fromkeys(span.header_rows) if row < span.start]
        header = "\n".join(lines[row] for row in above)
        chunks.append(Chunk(span.start + 1, span.end + 1, symbols, kind, text, header, prototypes))
    return chunks


def _test_owner(span: _Span, definitions: list[Declaration], rows: list[int]) -> tuple[str, ...]:
    """The name of the test a part of a long test lies in, for a part that names nothing
    itself: ranking then counts every part of the test as one (`wherein.inline_tests`), where
    only its first was named. Other parts stay unnamed: a function's name belongs to the part
    that declares it. The innermost declaration whose header the part carries is its owner."""
    owner = None
    for row in span.header_rows:
        if row < span.start:
            at = bisect.bisect_left(rows, row)
            while at < len(rows) and rows[at] == row:
                owner = definitions[at]
                at += 1
    if owner is None or not in_test_module(owner.qualified.split(".")):
        return ()
    return (owner.qualified,)


def _symbols_in(inside: list[Declaration]) -> tuple[str, ...]:
    # Distinct names first, then the cap: a Haskell signature and its equation, or a
    # function's clauses, are one name and must not crowd later names out.
    first: dict[str, Declaration] = {}
    for d in inside:
        if not d.namespace:
            first.setdefault(d.qualified, d)
    inside = list(first.values())
    if len(inside) > MAX_SYMBOLS:
        keep = sorted(inside, key=lambda d: (d.depth, d.row))[:MAX_SYMBOLS]
        inside = sorted(keep, key=lambda d: (d.row, d.depth))
    return tuple(d.qualified for d in inside)


def _prototypes_in(inside: list[Declaration], symbols: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `symbols` no declaration `inside` gives a body: a prototype followed by its
    definition in one chunk is a definition."""
    defined = {d.qualified for d in inside if not d.prototype}
    return tuple(name for name in symbols if name not in defined)


def _window_rows(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """Windows of about WINDOW_LINES rows, cut at a blank line where one is near."""
    windows = []
    row = start
    while row <= end:
        stop = min(row + WINDOW_LINES - 1, end)
        if stop < end:
            for candidate in range(stop, max(row + WINDOW_LINES // 2, row), -1):
                if not lines[candidate].strip():
                    stop = candidate
                    break
        windows.append((row, stop))
        row = stop + 1
    return windows


def _windows(lines: list[str], start: int, end: int) -> list[_Span]:
    return [_Span(s, e) for s, e in _window_rows(lines, start, end)]


def _markdown_spans(lines: list[str]) -> list[_Span]:
    """Sections from one heading to the next; small ones merged, large ones windowed."""
    headings = heading_rows(lines)
    starts = [0] + [row for row in headings if row > 0]
    bounds = [(s, e - 1) for s, e in zip(starts, starts[1:] + [len(lines)], strict=True)]
    cutter = _Cutter(lines)
    spans = cutter.group([(s, e, None) for s, e in bounds if e >= s], ())
    # A window cut from the middle of a long section keeps that section's heading.
    out = []
    for span in spans:
        index = bisect.bisect_right(headings, span.start) - 1
        if index >= 0 and headings[index] != span.start:
            span = _Span(span.start, span.end, (headings[index],))
        out.append(span)
    return out
