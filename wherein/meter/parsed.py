"""One ledger file read on its own, and the rule that merges such files into one table.

Reading a file yields a `ParsedFile`: its requests in a table of their own, each with the key
it merges on across files (a Claude response's message.id and requestId, a Codex turn's
running total), the recall calls it holds and what reading it met. Claude copies of one
response within the file are already merged, keeping what the dedupe rule keeps. `Merger`
then joins files in a fixed order, and gives the same table whether a file was just parsed,
parsed in another process, or read back from the cache (`parsecache.py`): line by line, the
cross-file rule would have made the same choices.
"""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import dataclass, field

from wherein.meter.jsonl import ReadStats
from wherein.meter.table import RequestTable

__all__ = [
    "DEDUPE_FIRST",
    "DEDUPE_LARGEST",
    "KIND_CLAUDE",
    "KIND_CODEX",
    "KIND_GENERIC",
    "NO_KEY",
    "Merger",
    "ParsedFile",
]

DEDUPE_LARGEST = "largest"
DEDUPE_FIRST = "first"  # ccusage's documented rule, kept for comparison only
KIND_CLAUDE, KIND_CODEX, KIND_GENERIC = "claude", "codex", "generic"
KEY_BYTES = 16  # blake2b-128: no realistic collision, a third of the memory of the text
NO_KEY = bytes(KEY_BYTES)  # a row that merges with no other
# The serialized form: a magic line, the header's length, the header as JSON, then columns.
# Columns are stored as the table holds them, in this machine's byte order and sizes.
_TYPECODES = "".join(getattr(RequestTable(), column).typecode for column in RequestTable.COLUMNS)
MAGIC = f"wherein-parsed-file 2 {sys.byteorder} {_TYPECODES}\n".encode()
_LENGTH = struct.Struct("<Q")
_STAT_FIELDS = (
    *("files", "lines", "malformed", "malformed_by_file", "duplicate_lines", "repeated_events"),
    *("rejected", "rejected_by_reason", "first_rejected", "skipped_lines", "replayed_turns"),
    *("not_understood", "unreadable"),
)


@dataclass
class ParsedFile:
    """The requests of one file, the keys they merge on, and what reading the file met."""

    kind: str
    table: RequestTable = field(default_factory=RequestTable)
    keys: list[bytes] = field(default_factory=list)  # one per row, NO_KEY for none
    sidechain: bytearray = field(default_factory=bytearray)  # 1: the row is a subagent's
    recall: list[tuple[str, str]] = field(default_factory=list)  # (session, tool_use id or "")
    stats: ReadStats = field(default_factory=ReadStats)
    signature: tuple[int, int, int] | None = None  # (size, mtime_ns, inode) of what was read

    def to_bytes(self) -> bytes:
        """The file's results in a compact form, for the cache and from a reader process."""
        header = {
            "kind": self.kind,
            "rows": len(self.table),
            "names": self.table.names,
            "recall": self.recall,
            "signature": self.signature,
            "stats": {name: getattr(self.stats, name) for name in _STAT_FIELDS},
        }
        head = json.dumps(header, separators=(",", ":")).encode("ascii")
        parts = [MAGIC, _LENGTH.pack(len(head)), head]
        for column in RequestTable.COLUMNS:
            parts.append(getattr(self.table, column).tobytes())
        parts.append(bytes(self.sidechain))
        parts.append(b"".join(self.keys))
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> ParsedFile:
        """Read back what `to_bytes` wrote.

        Raises:
            ValueError: the bytes are not such a record (a damaged or foreign cache entry).
        """
        if not data.startswith(MAGIC):
            raise ValueError("not a parsed-file record")
        offset = len(MAGIC)
        (length,) = _LENGTH.unpack_from(data, offset)
        offset += _LENGTH.size
        header = json.loads(data[offset : offset + length])
        offset += length
        rows = header["rows"]
        parsed = cls(kind=header["kind"], signature=_signature(header["signature"]))
        table = parsed.table
        view = memoryview(data)
        for column in RequestTable.COLUMNS:
            target = getattr(table, column)
            size = target.itemsize * rows
            target.frombytes(view[offset : offset + size])
            offset += size
        parsed.sidechain = bytearray(data[offset : offset + rows])
        offset += rows
        keys = data[offset : offset + KEY_BYTES * rows]
        offset += KEY_BYTES * rows
        if offset != len(data) or len(table) != rows or len(parsed.sidechain) != rows:
            raise ValueError("a parsed-file record of the wrong length")
        parsed.keys = [keys[i : i + KEY_BYTES] for i in range(0, len(keys), KEY_BYTES)]
        for name in header["names"]:
            table.name_id(name)
        parsed.recall = [(session, tool) for session, tool in header["recall"]]
        for name, value in header["stats"].items():
            if name in _STAT_FIELDS:
                setattr(parsed.stats, name, value)
        return parsed


def _signature(value: object) -> tuple[int, int, int] | None:
    if isinstance(value, list) and len(value) == 3:
        return (int(value[0]), int(value[1]), int(value[2]))
    return None


class Merger:
    """Joins parsed files into one table, one file at a time, in the order given.

    Claude: a response already seen in an earlier file (a resumed session's copy) is a
    duplicate line; with the "largest" rule the fuller copy replaces the row in place.
    Codex: a turn whose running total an earlier file already holds was replayed into a
    forked or resumed rollout, and is counted once. A recall tool_use seen before (copied
    with its session) is counted once.
    """

    def __init__(self, table: RequestTable, stats: ReadStats, dedupe: str = DEDUPE_LARGEST):
        self.table = table
        self.stats = stats
        self.dedupe = dedupe
        self.recall_calls: dict[str, int] = {}  # session -> recall tool_use blocks
        self.sidechain_requests = 0
        self._claude_rows: dict[bytes, int] = {}
        self._codex_turns: set[bytes] = set()
        self._tool_ids: set[str] = set()

    def merge(self, parsed: ParsedFile) -> None:
        """Add one file's requests, recall calls and counts."""
        self.stats.add(parsed.stats)
        if parsed.kind == KIND_CLAUDE:
            self._merge_claude(parsed)
        elif parsed.kind == KIND_CODEX:
            self._merge_codex(parsed)
        else:
            self.table.extend_from(parsed.table)
        for session, tool_id in parsed.recall:
            if tool_id:
                if tool_id in self._tool_ids:  # the same block copied into a resumed session
                    continue
                self._tool_ids.add(tool_id)
            self.recall_calls[session] = self.recall_calls.get(session, 0) + 1

    def _merge_claude(self, parsed: ParsedFile) -> None:
        table, local = self.table, parsed.table
        rows = self._claude_rows
        base = len(table)
        if NO_KEY not in parsed.keys and rows.keys().isdisjoint(parsed.keys):
            rows.update(zip(parsed.keys, range(base, base + len(local)), strict=True))
            self.sidechain_requests += sum(parsed.sidechain)
            table.extend_from(local)
            return
        kept: list[int] = []
        replaced: list[tuple[int, int]] = []
        largest = self.dedupe == DEDUPE_LARGEST
        sidechain = parsed.sidechain
        for i, key in enumerate(parsed.keys):
            if key != NO_KEY:
                index = rows.get(key)
                if index is not None:
                    self.stats.duplicate_lines += 1
                    if largest and local.total(i) > table.total(index):
                        replaced.append((index, i))
                    continue
                rows[key] = base + len(kept)
            kept.append(i)
            self.sidechain_requests += sidechain[i]
        table.extend_from(local, None if len(kept) == len(local) else kept)
        for index, i in replaced:
            table.copy_row(index, local, i)

    def _merge_codex(self, parsed: ParsedFile) -> None:
        seen = self._codex_turns
        if NO_KEY not in parsed.keys and seen.isdisjoint(parsed.keys):
            seen.update(parsed.keys)  # no turn of this rollout was seen before
            self.table.extend_from(parsed.table)
            return
        kept: list[int] = []
        for i, key in enumerate(parsed.keys):
            if key != NO_KEY:
                if key in seen:
                    self.stats.replayed_turns += 1
                    continue
                seen.add(key)
            kept.append(i)
        self.table.extend_from(parsed.table, None if len(kept) == len(parsed.table) else kept)
