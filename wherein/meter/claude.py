"""Claude Code session transcripts: one request per API response, found in `projects/**/*.jsonl`.

Claude Code writes one line per content block of a response and repeats the response's usage
on each; early streamed lines carry placeholder output counts. Lines are therefore merged on
(message.id, requestId), keeping the line with the largest token total; a gateway that drops
requestId leaves message.id, which alone still merges every copy. Subagent transcripts
share their parent's sessionId, so their requests count in the parent session.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from wherein.meter.bounds import OutOfRange
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.parsed import (
    DEDUPE_FIRST,
    DEDUPE_LARGEST,
    KEY_BYTES,
    KIND_CLAUDE,
    NO_KEY,
    Merger,
    ParsedFile,
)
from wherein.meter.responses import (
    LINE_TYPES,
    RECALL_TOOL,
    SYNTHETIC_MODEL,
    response_usage,
    short_label,
)
from wherein.meter.table import NO_COST, SOURCE_CLAUDE, Request, RequestTable

__all__ = [
    "DEDUPE_FIRST",
    "DEDUPE_LARGEST",
    "PROJECTS_DIR",
    "ClaudeReader",
    "claude_candidates",
    "claude_roots",
    "claude_transcripts",
    "parse_claude",
]

PROJECTS_DIR = "projects"
DEDUPE_KEY_BYTES = KEY_BYTES


def claude_candidates(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where Claude Code may keep its config: the directories in `CLAUDE_CONFIG_DIR`
    (comma-separated) if set, else `$XDG_CONFIG_HOME/claude` (default `~/.config/claude`)
    and `~/.claude`."""
    env = os.environ if environ is None else environ
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if configured:
        return [Path(p.strip()).expanduser() for p in configured.split(",") if p.strip()]
    config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [Path(config_home) / "claude", Path.home() / ".claude"]


def claude_roots(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The candidates that hold a `projects/` folder, each once."""
    roots: list[Path] = []
    for candidate in claude_candidates(environ):
        resolved = candidate.resolve()
        if resolved not in roots and (resolved / PROJECTS_DIR).is_dir():
            roots.append(resolved)
    return roots


def claude_transcripts(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every transcript under each root's `projects/`, subagent transcripts included."""
    found: list[Path] = []
    for root in claude_roots(environ):
        found.extend(sorted((root / PROJECTS_DIR).rglob("*.jsonl")))
    return found


class ClaudeReader:
    """Reads transcripts into a table, merging streamed copies across every file it reads."""

    def __init__(self, table: RequestTable, stats: ReadStats, dedupe: str = DEDUPE_LARGEST):
        self.merger = Merger(table, stats, dedupe)
        self.dedupe = dedupe

    @property
    def recall_calls(self) -> dict[str, int]:
        return self.merger.recall_calls

    @property
    def sidechain_requests(self) -> int:
        return self.merger.sidechain_requests

    def read(self, path: Path) -> None:
        """Read one transcript; a link found under `projects/` is not followed (see jsonl.py)."""
        self.merger.merge(parse_claude(path, self.dedupe))


def parse_claude(path: Path, dedupe: str = DEDUPE_LARGEST) -> ParsedFile:
    """One transcript's requests, its streamed copies merged by `dedupe`, and its recall calls.

    Only lines holding the text "assistant" are parsed (a response's line always does); the
    rest, user turns with their tool results, are most of a transcript's bytes. Likewise a
    line's blocks are searched for a recall tool_use only when it holds the text "recall".
    (Claude Code writes these words as they are; a line spelling them with JSON escapes is
    not one it wrote.) The loop runs once per response line, so it appends to the table's
    columns itself.
    """
    parsed = ParsedFile(KIND_CLAUDE)
    stats, table, keys, sidechain = parsed.stats, parsed.table, parsed.keys, parsed.sidechain
    fallback_project = _project_from_path(path)
    rows: dict[tuple[str, str], int] = {}  # (message.id, requestId) -> row, in this file
    tool_ids: set[str] = set()
    largest = dedupe == DEDUPE_LARGEST
    note_malformed = stats.note_malformed
    name_id = table.name_id
    appends = [getattr(table, column).append for column in RequestTable.COLUMNS]
    add_time, add_session, add_model, add_project, add_input, add_read = appends[:6]
    add_5m, add_1h, add_output, add_cost, add_source = appends[6:]

    def opened(info: os.stat_result) -> None:
        parsed.signature = (info.st_size, info.st_mtime_ns, info.st_ino)

    lines = iter_json_lines(path, stats, keep=_may_hold_a_response, on_open=opened, raw=True)
    for raw, line in lines:
        if type(line) is not dict:
            note_malformed(path)
            continue
        kind = line.get("type")
        if kind != "assistant":
            if kind not in LINE_TYPES:
                stats.note_not_understood(f"Claude line type {short_label(kind)}")
            continue
        message = line.get("message")
        if type(message) is not dict:
            note_malformed(path)
            continue
        session = line.get("sessionId")
        if type(session) is not str or not session:
            note_malformed(path)
            continue
        if b"recall" in raw:  # the tool's name; a cheap test before walking the blocks
            content = message.get("content")
            if type(content) is list:
                _note_recall(parsed.recall, tool_ids, session, content)
        model = message.get("model")
        if model == SYNTHETIC_MODEL:
            continue
        try:
            values = response_usage(line, message, model, stats)
        except OutOfRange as err:
            stats.note_rejected(path, err.reason)
            continue
        if values is None:
            note_malformed(path)
            continue
        when, fresh, read, write_5m, write_1h, output, cost = values
        message_id = message.get("id")
        if type(message_id) is not str or not message_id:
            key = NO_KEY  # nothing to merge on: every such line is its own request
        else:
            # ccusage falls back to message.id alone when requestId is missing (its #985), as
            # third-party gateways write it: every streamed copy still shares that key.
            request_id = line.get("requestId")
            pair = (message_id, request_id if type(request_id) is str else "")
            index = rows.get(pair)
            if index is not None:
                stats.duplicate_lines += 1
                if largest and fresh + read + write_5m + write_1h + output > table.total(index):
                    project = _project(line, fallback_project)
                    counts = (fresh, read, write_5m, write_1h, output)
                    request = Request(when, session, model, project, *counts, cost, SOURCE_CLAUDE)
                    table.replace(index, request)
                continue
            rows[pair] = len(keys)
            key = _digest(pair)
        add_time(when)
        add_session(name_id(session))
        add_model(name_id(model))
        add_project(name_id(_project(line, fallback_project)))
        add_input(fresh)
        add_read(read)
        add_5m(write_5m)
        add_1h(write_1h)
        add_output(output)
        add_cost(NO_COST if cost is None else cost)
        add_source(SOURCE_CLAUDE)
        keys.append(key)
        sidechain.append(line.get("isSidechain") is True)
    return parsed


def _project(line: dict, fallback: str) -> str:
    cwd = line.get("cwd")
    return cwd if type(cwd) is str and cwd else fallback


def _digest(pair: tuple[str, str]) -> bytes:
    """The merge key as kept across files: 16 bytes, whatever the ids' length."""
    data = f"{pair[0]}\x00{pair[1]}".encode("utf-8", "surrogatepass")  # a lone surrogate
    return hashlib.blake2b(data, digest_size=DEDUPE_KEY_BYTES).digest()  # from a JSON escape


def _may_hold_a_response(raw: bytes) -> bool:
    return b'"assistant"' in raw


def _note_recall(found: list[tuple[str, str]], seen: set[str], session: str, content: list) -> None:
    for block in content:
        if not (type(block) is dict and block.get("type") == "tool_use"):
            continue
        name = block.get("name")
        if not (isinstance(name, str) and RECALL_TOOL.match(name)):
            continue
        tool_id = block.get("id")
        if isinstance(tool_id, str) and tool_id:
            if tool_id in seen:  # the same block copied again within this file
                continue
            seen.add(tool_id)
        else:
            tool_id = ""
        found.append((session, tool_id))


def _project_from_path(path: Path) -> str:
    """The encoded project folder under `projects/` (e.g. `-home-me-repo`), else the parent."""
    parts = path.parts
    if PROJECTS_DIR in parts:
        position = len(parts) - 1 - parts[::-1].index(PROJECTS_DIR)
        if position + 1 < len(parts) - 1:
            return parts[position + 1]
    return path.parent.name
