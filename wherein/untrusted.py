"""Text someone else wrote, made safe to show: one line, every control character visible.

A cloned repository chooses its file and folder names, its files' text and its `.wherein.toml`
values; a model server chooses its error text. Shown raw, a newline in any of them forges a
line of our own output (a fake note beside the MCP fence, a fake "all good" on stderr), and an
escape sequence clears the terminal, retitles it or writes the clipboard (OSC 52). So every
place that prints such text outside the MCP fence passes it through `one_line`, and the fence
itself uses it for each line of an excerpt. JSON keeps every value exact (`json_text`).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any

__all__ = [
    "MAX_ECHO_CHARS",
    "as_text",
    "clean_line",
    "cut_middle",
    "capped",
    "echo",
    "echo_folder",
    "echo_name",
    "echo_value",
    "json_text",
    "mint_nonce",
    "one_line",
    "visible",
]

# How much of a value an error message quotes: enough to recognise it, never a dump of it.
MAX_ECHO_CHARS = 80
# What `echo_name` quotes: a key or a folder path as people write them, no spaces or colons.
NAME_SHOWN = re.compile(r"[A-Za-z0-9_.@+/-]{1,80}")
# A fence's nonce: 16 random bytes, far past the 64 bits a guess would need to defeat, and
# cheap to repeat.
NONCE_BYTES = 16
# C0 but tab and newline, DEL and C1 (ESC, CSI U+009B, NEL), Unicode line and paragraph
# separators, the bidirectional controls that reorder what a reader sees, lone surrogates,
# which no UTF-8 stream can even encode, and the invisible tag characters and supplementary
# variation selectors, in which text can be hidden from a person and still read by a model.
# Also the characters that show nothing and join or split nothing a script needs (a soft
# hyphen, a zero-width space, a word joiner, the invisible operators, a BOM inside text):
# two names that differ by one look alike. Zero-width joiners and non-joiners stay: Persian,
# the Indic scripts and emoji need them.
_CONTROLS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_UNSAFE = re.compile(f"[\n{_CONTROLS}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[{_CONTROLS}]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    """JSON's own escape, `\\uNNNN`: a surrogate pair for a character past U+FFFF."""
    units = match.group().encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def as_text(value: str) -> str:
    """`value` without lone surrogates, which no tokenizer, SQLite or UTF-8 stream accepts.

    Undecodable argv bytes arrive as surrogates (PEP 383): they are decoded as UTF-8, with
    U+FFFD for what is not. Any other lone surrogate (a JSON string may hold one) is U+FFFD.
    """
    if not _SURROGATES.search(value):
        return value
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", value)


def one_line(text: str) -> str:
    """`text` as one line of plain text: each unsafe character becomes `\\xNN` or `\\uNNNN`.

    Tabs stay (they move nothing but the column); a newline becomes `\\x0a`.
    """
    return _UNSAFE.sub(_escape, text)


def visible(text: str) -> str:
    """Like `one_line`, but newlines stay: for a report of many lines (a diff, a doctor run)."""
    return _UNSAFE_BUT_NEWLINE.sub(_escape, text)


def echo(value: Any) -> str:
    """A value quoted in an error message: escaped, in quotes, and cut past MAX_ECHO_CHARS."""
    text = one_line(value if isinstance(value, str) else repr(value))
    if len(text) <= MAX_ECHO_CHARS:
        return f"'{text}'"
    length = len(value) if isinstance(value, str) else len(text)
    return f"'{text[:MAX_ECHO_CHARS]}...' ({length} characters)"


def cut_middle(text: str, width: int) -> str:
    """`text` cut to `width` characters by dropping its middle (`...`): someone's name keeps
    its start and its end, which tell it apart, and never fills a line."""
    if len(text) <= width:
        return text
    keep = width - 3
    return f"{text[: keep // 2]}...{text[len(text) - (keep - keep // 2) :]}"


def echo_name(value: str, wrote: str = "the repository's file wrote it") -> str:
    """A name a repository's file wrote, quoted only where it reads as a name (`NAME_SHOWN`):
    a message outside the fence reaches the agent as wherein's own words, and an unknown key
    or a focus can be a sentence of the repository's (`search.SYSTEM: run ...`)."""
    if NAME_SHOWN.fullmatch(value):
        return f"'{value}'"
    return f"(one of {len(value)} characters, not shown: {wrote})"


def echo_value(value: Any) -> str:
    """A setting's value a repository's file wrote, for a message outside the fence: a string
    as `echo_name` shows it, a number or a truth value as written, anything else by its kind
    (a list of sentences is as much the repository's words as one)."""
    if isinstance(value, str):
        return echo_name(value)
    if isinstance(value, (bool, int, float)):
        return echo(value)
    size = f" of {len(value)} items" if isinstance(value, (list, dict, tuple)) else ""
    return f"(a {type(value).__name__}{size}, not shown: the repository's file wrote it)"


def echo_folder(folder: str) -> str:
    """A folder a search was narrowed to without being asked (a focus marker, `scope.focus`):
    the repository named it, and a folder's name can be a sentence. Result paths, inside
    the fence, show it whole."""
    return echo_name(folder, "the repository named it; result paths show it")


def capped(notes: list[str], limit: int, what: str) -> list[str]:
    """At most `limit` of `notes`, then one line counting the rest: a file someone else wrote
    can hold thousands of entries, each worth a note in every answer."""
    if len(notes) <= limit:
        return notes
    rest = len(notes) - limit
    return [*notes[:limit], f"{rest:,} more {what} were left out; fix those above to see them."]


def json_text(value: Any) -> str:
    """`value` as JSON that a terminal shows as written and any strict parser reads back exactly.

    `json.dumps` escapes C0 already; this escapes the rest of the unsafe set (C1, separators,
    bidirectional controls, lone surrogates, tags) as `\\uNNNN`, which decodes to the same
    string. `allow_nan=False`: a non-finite figure is a bug to fail on, never `NaN` or
    `Infinity` printed as if it were JSON.
    """
    return _UNSAFE.sub(_json_escape, json.dumps(value, ensure_ascii=False, allow_nan=False))


def clean_line(text: str) -> str:
    """One line of someone else's text made safe to show: breaking characters become escapes."""
    return one_line(text.removesuffix("\r"))


def mint_nonce(token_hex: Callable[[int], str] = secrets.token_hex) -> str:
    """A fresh nonce for a fence (code excerpts, quoted messages): NONCE_BYTES bytes as hex."""
    return token_hex(NONCE_BYTES)
