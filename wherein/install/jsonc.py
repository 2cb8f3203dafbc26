"""Edit one member of a JSON or JSONC document by splicing text, so every other byte stays put.

Agents keep their MCP servers inside files the user also edits by hand (Zed's and VS Code's
settings carry `//` comments and trailing commas by default). Re-serialising such a file with
`json.dumps` would drop the comments and reflow the rest, so instead the document is scanned
once into spans (where each object, member and comma sits) and an edit inserts, replaces or
removes exactly the text of one member. The Python value comes from `json.loads` of the same
text with comments and trailing commas blanked out, so numbers and escapes are judged by the
standard parser, not by this scanner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wherein.errors import ConfigError
from wherein.install.files import match_newlines
from wherein.install.jsonc_scan import JsonMember, JsonScanner, JsonValue

__all__ = ["JsonDocument", "parse_json_document"]

_DEFAULT_INDENT = "  "  # what Claude Code, Cursor, VS Code and Zed write into a fresh file


@dataclass
class JsonDocument:
    """A parsed JSON(C) file: its text, its value, and edits that keep every other byte."""

    text: str
    data: Any
    root: JsonValue
    has_comments: bool
    where: str

    def get(self, path: tuple[str, ...]) -> Any:
        """The value at `path`, or None when a key along it is missing."""
        value = self.data
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def with_member(self, path: tuple[str, ...], value: Any) -> str:
        """The text with `path` set to `value`, creating the objects along it.

        Raises:
            ConfigError: a key along `path` holds something other than an object.
        """
        node = self.root
        for depth, key in enumerate(path[:-1]):
            member = _find(node, key)
            if member is None:
                nested: Any = value
                for inner in reversed(path[depth + 1 :]):
                    nested = {inner: nested}
                return match_newlines(self.text, self._insert(node, key, nested))
            if member.value.kind != "object":
                raise ConfigError(
                    f"'{'.'.join(path[: depth + 1])}' in {self.where} is not an object, so "
                    "wherein cannot add its entry there. It was left untouched; fix that key "
                    "and run the command again."
                )
            node = member.value
        member = _find(node, path[-1])
        if member is None:
            return match_newlines(self.text, self._insert(node, path[-1], value))
        if _starts_line(self.text, member.key_start):
            indent = _line_indent(self.text, member.key_start)
            rendered = _render(value, indent, self._unit())
        else:  # a member sharing its line stays on one line
            rendered = json.dumps(value, ensure_ascii=False)
        edited = self.text[: member.value.start] + rendered + self.text[member.value.end :]
        return match_newlines(self.text, edited)

    def without_member(self, path: tuple[str, ...]) -> str:
        """The text with the member at `path` removed (unchanged when it is absent)."""
        node = self.root
        for key in path[:-1]:
            member = _find(node, key)
            if member is None or member.value.kind != "object":
                return self.text
            node = member.value
        member = _find(node, path[-1])
        if member is None:
            return self.text
        return self._remove(node, member)

    def is_empty_object(self, path: tuple[str, ...]) -> bool:
        """Whether `path` (() for the whole file) is an object with no members and no comments."""
        node = self.root
        for key in path:
            member = _find(node, key)
            if member is None:
                return False
            node = member.value
        return node.kind == "object" and not node.members and not node.has_comments

    def _unit(self) -> str:
        """The indentation step of the file, read from the root's first member."""
        members = self.root.members
        if members and _starts_line(self.text, members[0].key_start):
            return _line_indent(self.text, members[0].key_start) or _DEFAULT_INDENT
        return _DEFAULT_INDENT

    def _insert(self, node: JsonValue, key: str, value: Any) -> str:
        text = self.text
        close = node.end - 1  # the "}"
        key_text = json.dumps(key, ensure_ascii=False)
        if not node.members:
            inner = text[node.start + 1 : close]
            outer = _line_indent(text, node.start)
            indent = outer + self._unit()
            entry = f"{key_text}: {_render(value, indent, self._unit())}"
            if inner.strip():  # only comments inside: keep them, put the member first
                return text[: node.start + 1] + f"\n{indent}{entry}" + text[node.start + 1 :]
            return text[: node.start + 1] + f"\n{indent}{entry}\n{outer}" + text[close:]
        last = node.members[-1]
        first = node.members[0]
        if not _starts_line(text, first.key_start) or "\n" not in text[last.value.end : close]:
            # A one-line object stays on one line.
            entry = f"{key_text}: {json.dumps(value, ensure_ascii=False)}"
            if last.comma is not None:
                return text[: last.comma + 1] + f" {entry}," + text[last.comma + 1 :]
            return text[: last.value.end] + f", {entry}" + text[last.value.end :]
        indent = _line_indent(text, last.key_start)
        entry = f"{key_text}: {_render(value, indent, self._unit())}"
        line_start = text.rfind("\n", 0, close) + 1  # the closing line, after any comments
        if last.comma is not None:
            # The file writes trailing commas: so does the new member, which keeps removal exact.
            return text[:line_start] + f"{indent}{entry},\n" + text[line_start:]
        return (
            text[: last.value.end]
            + ","
            + text[last.value.end : line_start]
            + f"{indent}{entry}\n"
            + text[line_start:]
        )

    def _remove(self, node: JsonValue, member: JsonMember) -> str:
        text = self.text
        position = node.members.index(member)
        if len(node.members) == 1 and not node.has_comments:
            return text[: node.start + 1] + text[node.end - 1 :]
        end = member.comma + 1 if member.comma is not None else member.value.end
        start = member.key_start
        own_line = _starts_line(text, start) and text[end:].split("\n", 1)[0].strip() == ""
        if own_line:
            start = text.rfind("\n", 0, start) + 1
            newline = text.find("\n", end)
            end = len(text) if newline == -1 else newline + 1
        elif member.comma is None and position > 0:
            start = node.members[position - 1].value.end  # ", key: value" on one line
        elif member.comma is not None and end < len(text) and text[end] == " ":
            end += 1  # "a, key: value, b" loses "key: value, "
        elif member.comma is not None and start > 0 and text[start - 1] == " ":
            start -= 1  # "a, key: value,}" loses " key: value,"
        result = text[:start] + text[end:]
        if member.comma is None and position > 0 and own_line:
            # The member was last without a trailing comma: its predecessor's comma goes too.
            comma = node.members[position - 1].comma
            if comma is not None:
                result = result[:comma] + result[comma + 1 :]
        return result


def parse_json_document(text: str, where: str, allow_comments: bool) -> JsonDocument:
    """Parse `text` (the file named by `where`) for splicing.

    An empty or blank file counts as `{}`.

    Raises:
        ConfigError: the text does not parse, its top level is not an object, or it has
            comments or trailing commas while `allow_comments` is False (the agent reads plain
            JSON, so the file is already broken for it).
    """
    source = text if text.strip() else "{}\n"
    scanner = JsonScanner(source, where)
    root = scanner.document()
    if root.kind != "object":
        raise ConfigError(
            f"{where} does not hold a JSON object at the top. It was left untouched; fix it "
            "and run the command again."
        )
    if not allow_comments and (scanner.comments or scanner.trailing_commas):
        position = scanner.comments[0][0] if scanner.comments else scanner.trailing_commas[0]
        line = source.count("\n", 0, position) + 1
        raise ConfigError(
            f"{where} has a comment or a trailing comma at line {line}, which the agent's "
            "plain-JSON reader rejects. It was left untouched; remove it and run the command "
            "again."
        )
    blanked = list(source)
    if source.startswith("\ufeff"):
        blanked[0] = " "  # json.loads refuses a BOM; the spans keep it
    for start, end in scanner.comments:
        blanked[start:end] = " " * (end - start)
    for comma in scanner.trailing_commas:
        blanked[comma] = " "
    try:
        data = json.loads("".join(blanked))
    except json.JSONDecodeError as err:
        raise ConfigError(
            f"{where} is not valid JSON ({err.msg} at line {err.lineno}). It was left "
            "untouched; fix it and run the command again."
        ) from err
    return JsonDocument(source, data, root, bool(scanner.comments), where)


def _find(node: JsonValue, key: str) -> JsonMember | None:
    """The member named `key`; the last one wins, as in JSON.parse."""
    found = None
    for member in node.members:
        if member.key == key:
            found = member
    return found


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _starts_line(text: str, position: int) -> bool:
    line_start = text.rfind("\n", 0, position) + 1
    return text[line_start:position].strip() == ""


def _render(value: Any, indent: str, unit: str) -> str:
    """`value` as JSON in the file's indentation, continuing a line indented by `indent`.

    Objects open one member per line; a list of plain values stays on one line, as the agents'
    own documentation writes `"args": ["serve"]`.
    """
    if isinstance(value, dict) and value:
        inner = indent + unit
        members = [
            f"{inner}{json.dumps(key, ensure_ascii=False)}: {_render(item, inner, unit)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(members) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        inner = indent + unit
        items = [f"{inner}{_render(item, inner, unit)}" for item in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)
