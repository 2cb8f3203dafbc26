"""Search results for other programs: one JSON object per line, or the files alone.

`--jsonl` writes each result as its `search --json` object, one per line, flushed as it goes,
so a reader can act on the first before the last is written. `-l` writes each result's file
once, best first, as `grep -l` does: the workspace-relative path, or for an extra root the
absolute one a shell can open. A file name is the repository's text, so it goes out through
`untrusted.one_line` (a newline in a name cannot forge a second file), and JSON through
`untrusted.json_text`.
"""

from __future__ import annotations

from typing import TextIO

from wherein.hits import SearchResult
from wherein.untrusted import json_text, one_line

__all__ = ["print_files", "print_jsonl"]


def print_jsonl(result: SearchResult, stream: TextIO) -> None:
    """One line of JSON per result, in rank order."""
    for hit in result.hits:
        stream.write(json_text(hit.to_json()) + "\n")
        stream.flush()


def print_files(result: SearchResult, stream: TextIO) -> None:
    """Each result's file once, in the order of its best result."""
    seen: set[str] = set()
    for hit in result.hits:
        name = hit.source_path or hit.path
        if name not in seen:
            seen.add(name)
            stream.write(one_line(name) + "\n")
            stream.flush()
