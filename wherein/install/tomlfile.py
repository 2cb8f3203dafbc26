"""Add or remove one `[a.b]` table in a TOML file (Codex's config.toml), keeping the rest.

The file is read, and every edit checked, by `toml_text.loads`; the edit itself is text: a
new table is appended after a blank line, and removing it cuts exactly those lines, so
install followed by uninstall gives back the original bytes. (tomlkit's own `del` leaves the
blank line it added before the table.) Each spliced text is parsed again and must hold
exactly the expected data; when it does not (the parent is an inline table, say), the edit
goes through tomlkit instead, which keeps comments but may move whitespace (and refuses a
file it would take minutes on: `toml_text.too_slow_to_edit`).
"""

from __future__ import annotations

import re
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

from wherein.errors import ConfigError
from wherein.install.files import match_newlines, newline_of
from wherein.toml_text import TomlError, loads, too_slow_to_edit

__all__ = ["TomlDocument", "parse_toml_document"]

# A `[table]` or `[[array]]` header on its own line, with an optional trailing comment.
_HEADER = re.compile(r"^[ \t]*\[\[?([^\[\]\r\n]+)\]\]?[ \t]*(?:#[^\r\n]*)?\r?$", re.MULTILINE)


class TomlDocument:
    """A parsed TOML file and text edits of one table."""

    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        try:
            self.data = loads(text)
        except TomlError as err:
            raise _invalid(where, err) from err

    def get(self, path: tuple[str, ...]) -> Any:
        value: Any = self.data
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def with_table(self, path: tuple[str, ...], table: dict[str, Any]) -> str:
        """The text with the table at `path` holding `table`'s keys (others it has are kept).

        Raises:
            ConfigError: a key along `path` holds something other than a table.
        """
        current = self.get(path)
        if current is not None and not isinstance(current, dict):  # `wherein = "x"`
            raise ConfigError(
                f"'{'.'.join(path)}' in {self.where} is not a table, so wherein cannot write "
                "its entry there. It was left untouched; fix that key and run the command again."
            )
        expected = _deep_set(self.data, path, {**(current or {}), **table}, self.where)
        if current is None:
            separator = "" if not self.text else ("\n" if self.text.endswith("\n") else "\n\n")
            block = f"[{'.'.join(path)}]\n" + tomlkit.dumps(table)
            spliced = match_newlines(self.text, self.text + separator + block)
            if _parses_to(spliced, expected):
                return spliced
        document = _parse(self.text, self.where)
        try:
            container: Any = document
            for key in path[:-1]:
                if key not in container:
                    container[key] = tomlkit.table(is_super_table=True)
                container = container[key]
            if path[-1] not in container:
                inline = isinstance(container, tomlkit.items.InlineTable)
                container[path[-1]] = tomlkit.inline_table() if inline else tomlkit.table()
            for key, value in table.items():
                container[path[-1]][key] = value
            result = tomlkit.dumps(document)
        except (ValueError, TypeError, KeyError):  # tomlkit's word for "not a table here"
            result = ""
        if not _parses_to(result, expected):
            raise ConfigError(
                f"{self.where} could not take a [{'.'.join(path)}] table: one of its keys holds "
                "something else. It was left untouched; fix it and run the command again."
            )
        return result

    def without_table(self, path: tuple[str, ...]) -> str:
        """The text without the table at `path` (unchanged when it is absent)."""
        if self.get(path) is None:
            return self.text
        expected = _deep_delete(self.data, path)
        spliced = self._cut_table(path)
        # A parent that only our header brought into being ([mcp_servers.wherein] makes
        # mcp_servers) goes with it.
        if spliced is not None and (
            _parses_to(spliced, expected)
            or _parses_to(spliced, _deep_delete(self.data, path, prune=True))
        ):
            return spliced
        document = _parse(self.text, self.where)
        container: Any = document
        for key in path[:-1]:
            container = container[key]
        del container[path[-1]]
        return tomlkit.dumps(document)

    def _cut_table(self, path: tuple[str, ...]) -> str | None:
        headers = [(m.start(), _key_of(m.group(1))) for m in _HEADER.finditer(self.text)]
        starts = [start for start, key in headers if key == list(path)]
        if len(starts) != 1:
            return None
        start = starts[0]
        end = len(self.text)
        for position, key in headers:
            if position > start and key[: len(path)] != list(path):
                end = position
                break
        result = self.text[:start] + self.text[end:]
        newline = newline_of(self.text)
        if end == len(self.text) and result.endswith(newline * 2):
            result = result[: -len(newline)]  # the blank line install put before the table
        return result


def parse_toml_document(text: str, where: str) -> TomlDocument:
    """Parse `text` (the file named by `where`).

    Raises:
        ConfigError: the text is not valid TOML.
    """
    return TomlDocument(text, where)


def _parse(text: str, where: str) -> tomlkit.TOMLDocument:
    refusal = too_slow_to_edit(text, where)
    if refusal:
        raise ConfigError(refusal + "; then run the command again.")
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as err:
        raise _invalid(where, err) from err


def _invalid(where: str, err: Exception) -> ConfigError:
    return ConfigError(
        f"{where} is not valid TOML ({err}). It was left untouched; fix it and run the "
        "command again."
    )


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        return loads(text) == expected
    except TomlError:
        return False


def _key_of(header: str) -> list[str]:
    return [part.strip().strip("\"'") for part in header.split(".")]


def _deep_set(
    data: dict[str, Any], path: tuple[str, ...], value: Any, where: str
) -> dict[str, Any]:
    copy = dict(data)
    inner = copy.get(path[0])
    if len(path) == 1:
        copy[path[0]] = value
    elif inner is None or isinstance(inner, dict):
        copy[path[0]] = _deep_set(inner or {}, path[1:], value, where)
    else:
        raise ConfigError(
            f"'{path[0]}' in {where} is not a table, so wherein cannot add its entry under it. "
            "It was left untouched; fix that key and run the command again."
        )
    return copy


def _deep_delete(
    data: dict[str, Any], path: tuple[str, ...], prune: bool = False
) -> dict[str, Any]:
    """`data` without `path`; with `prune`, parents left empty go too."""
    copy = dict(data)
    if len(path) == 1:
        copy.pop(path[0], None)
    else:
        copy[path[0]] = _deep_delete(copy[path[0]], path[1:], prune)
        if prune and not copy[path[0]]:
            del copy[path[0]]
    return copy
