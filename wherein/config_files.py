"""Reading a configuration file: a regular, bounded UTF-8 file of TOML `[section]` tables.

A workspace's `.wherein.toml` arrives with a clone, so it is read as any control file is
(`safe_files.read_regular`): never through a link, never a FIFO or a device.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from wherein.errors import ConfigError
from wherein.safe_files import CONTROL_FILE_MAX_BYTES, UnsafeFile, read_regular
from wherein.toml_text import TomlError, loads, too_slow_to_edit

if TYPE_CHECKING:
    import tomlkit

__all__ = ["flatten_sections", "read_config_document", "read_config_text", "read_config_toml"]


def read_config_text(path: Path, *, follow_links: bool = False) -> str | None:
    """The file's text, None when there is no such file.

    Read as a source file is: a regular file, bounded, and (unless it is the user's own file,
    which may well be a dotfiles link) not through a symbolic link.
    """
    try:
        data = read_regular(path, max_bytes=CONTROL_FILE_MAX_BYTES, follow_links=follow_links)
    except UnsafeFile as err:
        raise ConfigError(
            f"Config file {path} is not read: {err}. Replace it with a file."
        ) from err
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"Config file {path} is not UTF-8 text ({err.reason} at byte {err.start}). "
            "Fix or remove it."
        ) from err


def read_config_document(path: Path, text: str | None) -> tomlkit.TOMLDocument:
    """The file as tomlkit keeps it for an edit (comments, layout).

    Raises:
        ConfigError: the text is not valid TOML, or too slow for tomlkit to parse.
    """
    import tomlkit
    import tomlkit.exceptions

    if text is None:
        return tomlkit.document()
    read_config_toml(path, text)  # invalid TOML is said in the same words as when read
    refusal = too_slow_to_edit(text, f"Config file {path}")
    if refusal:
        raise ConfigError(refusal + ".")
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as err:
        raise ConfigError(
            f"Config file {path} is not valid TOML ({err}). Fix or remove it."
        ) from err


def read_config_toml(path: Path, text: str | None) -> dict[str, Any]:
    """The file's data (`toml_text.loads`: fast whatever a clone wrote in it)."""
    if text is None:
        return {}
    try:
        return loads(text)
    except TomlError as err:
        raise ConfigError(
            f"Config file {path} is not valid TOML ({err}). Fix or remove it."
        ) from err


def flatten_sections(data: dict[str, Any], path: Path, known: list[str]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"'{section}' in {path} must be a [section] table of keys. "
                f"Known keys: {', '.join(known)}."
            )
        for name, value in table.items():
            flat[f"{section}.{name}"] = value
    return flat
