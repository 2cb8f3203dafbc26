"""One pass over a JSON(C) text that records where each value, member, comment and comma sits.

`jsonc.JsonDocument` splices edits into those spans; the values themselves are judged by
`json.loads`, not here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from wherein.errors import ConfigError

__all__ = ["MAX_NESTING", "JsonMember", "JsonScanner", "JsonValue"]

# One token: a string, a comment, punctuation, a bare word (number, true, false, null) or a run
# of whitespace. An unterminated string or block comment matches nothing and stops the scan.
_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'
    r"|//[^\n]*"
    r"|/\*.*?\*/"
    r"|[{}\[\],:]"
    r"|[^\s{}\[\],:\"/\ufeff]+"
    r"|[\s\ufeff]+",  # a byte-order mark counts as whitespace
    re.DOTALL,
)
# A project's file came with a clone: `[[[[...` a million deep must be an error, not a
# RecursionError. Agents' configs nest a few levels; tomlkit stops TOML at 100 too.
MAX_NESTING = 100


@dataclass
class JsonValue:
    """Where one value sits: `[start, end)`; objects also know their members."""

    start: int
    end: int
    kind: str  # "object" | "array" | "scalar"
    members: list[JsonMember] = field(default_factory=list)
    has_comments: bool = False  # a comment between this object's braces


@dataclass
class JsonMember:
    key: str
    key_start: int
    value: JsonValue
    comma: int | None  # the comma after the value, if any


class JsonScanner:
    """Recursive descent over the tokens, recording spans, comments and trailing commas."""

    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.tokens: list[tuple[int, int]] = []
        self.comments: list[tuple[int, int]] = []
        self.trailing_commas: list[int] = []
        self.depth = 0
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                self._fail(position, "an unterminated string or comment, or a stray character")
            start, end = match.span()
            first = text[start]
            if first == "/":
                self.comments.append((start, end))
            elif not (first.isspace() or first == "\ufeff"):
                self.tokens.append((start, end))
            position = end
        self.index = 0

    def _fail(self, position: int, what: str) -> None:
        line = self.text.count("\n", 0, position) + 1
        raise ConfigError(
            f"{self.where} is not valid JSON: {what} at line {line}. It was left untouched; "
            "fix it (or move it aside) and run the command again."
        )

    def _peek(self) -> tuple[int, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def _take(self) -> tuple[int, int]:
        token = self._peek()
        if token is None:
            self._fail(len(self.text), "an unexpected end of the file")
        self.index += 1
        return token

    def _char(self, token: tuple[int, int]) -> str:
        return self.text[token[0] : token[1]]

    def _expect(self, char: str) -> tuple[int, int]:
        token = self._take()
        if self._char(token) != char:
            self._fail(token[0], f"{self._char(token)[:20]!r} where {char!r} belongs")
        return token

    def document(self) -> JsonValue:
        if self._peek() is None:
            self._fail(0, "no content")
        value = self.value()
        extra = self._peek()
        if extra is not None:
            self._fail(extra[0], "text after the end of the document")
        return value

    def value(self) -> JsonValue:
        token = self._take()
        char = self._char(token)
        if char in "{[":
            self.depth += 1
            if self.depth > MAX_NESTING:
                self._fail(token[0], f"a value nested more than {MAX_NESTING} levels deep")
            try:
                return self._object(token[0]) if char == "{" else self._array(token[0])
            finally:
                self.depth -= 1
        if char in "}],:":
            self._fail(token[0], f"{char!r} where a value belongs")
        return JsonValue(token[0], token[1], "scalar")

    def _object(self, start: int) -> JsonValue:
        node = JsonValue(start, start, "object")
        while True:
            token = self._take()
            char = self._char(token)
            if char == "}":
                break
            if not char.startswith('"'):
                self._fail(token[0], f"{char[:20]!r} where a quoted key belongs")
            self._expect(":")
            try:
                key = json.loads(char)
            except json.JSONDecodeError:
                self._fail(token[0], f"a malformed key {char[:40]}")
            member = JsonMember(key, token[0], self.value(), None)
            node.members.append(member)
            after = self._take()
            if self._char(after) == ",":
                member.comma = after[0]
                closing = self._peek()
                if closing is not None and self._char(closing) == "}":
                    self.trailing_commas.append(after[0])
            elif self._char(after) == "}":
                break
            else:
                self._fail(after[0], "a missing comma between members")
        node.end = token[1] if char == "}" else after[1]
        node.has_comments = any(node.start < c[0] < node.end for c in self.comments)
        return node

    def _array(self, start: int) -> JsonValue:
        closing = self._peek()
        if closing is not None and self._char(closing) == "]":
            self.index += 1
            return JsonValue(start, closing[1], "array")
        while True:
            self.value()
            after = self._take()
            if self._char(after) == "]":
                return JsonValue(start, after[1], "array")
            if self._char(after) != ",":
                self._fail(after[0], "a missing comma between array items")
            closing = self._peek()
            if closing is not None and self._char(closing) == "]":
                self.trailing_commas.append(after[0])
                self.index += 1
                return JsonValue(start, closing[1], "array")
