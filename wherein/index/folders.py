"""Folders of the index as SQL: a display path is under a folder when it starts `folder/`."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["in_folders", "like_folder"]


def in_folders(prefixes: Sequence[str]) -> tuple[str, list[str]]:
    """A WHERE clause on `f.path` (files aliased `f`) for these folders, and its values."""
    clause = " OR ".join("f.path LIKE ? ESCAPE '\\'" for _ in prefixes)
    return clause, [like_folder(p) for p in prefixes]


def like_folder(prefix: str) -> str:
    """The LIKE pattern (escape `\\`) of every path under the folder `prefix`."""
    escaped = prefix.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"
