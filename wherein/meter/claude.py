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
from typing import Any

from wherein.meter import claudeschema
from wherein.meter.bounds import OutOfRange, check_cost, check_time
from wherein.meter.jsonl import ReadStats, decode_line, iter_json_lines
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
    from wherein.storage.paths import xdg_base

    return [xdg_base("XDG_CONFIG_HOME", ".config", env) / "claude", Path.home() / ".claude"]


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
    name_id = table.name_id
    appends = [getattr(table, column).append for column in RequestTable.COLUMNS]
    add_time, add_session, add_model, add_project, add_input, add_read = appends[:6]
    add_5m, add_1h, add_output, add_cost, add_source = appends[6:]

    def opened(info: os.stat_result) -> None:
        parsed.signature = (info.st_size, info.st_mtime_ns, info.st_ino)

    decode = claudeschema.decode or decode_line
    lines = iter_json_lines(
        path, stats, keep=_may_hold_a_response, on_open=opened, raw=True, decode=decode
    )
    for raw, line in lines:
        if type(line) is claudeschema.Line:
            facts = _typed_facts(raw, line, path, parsed, tool_ids)
        else:
            facts = _general_facts(raw, line, path, parsed, tool_ids)
        if facts is None:
            continue
        session, model, message_id, request_id, cwd, sidechain_flag, values = facts
        when, fresh, read, write_5m, write_1h, output, cost = values
        when, fresh, read, write_5m, write_1h, output, cost = values
        if type(message_id) is not str or not message_id:
            key = NO_KEY  # nothing to merge on: every such line is its own request
        else:
            # ccusage falls back to message.id alone when requestId is missing (its #985), as
            # third-party gateways write it: every streamed copy still shares that key.
            pair = (message_id, request_id if type(request_id) is str else "")
            index = rows.get(pair)
            if index is not None:
                stats.duplicate_lines += 1
                if largest and fresh + read + write_5m + write_1h + output > table.total(index):
                    project = cwd if type(cwd) is str and cwd else fallback_project
                    counts = (fresh, read, write_5m, write_1h, output)
                    request = Request(when, session, model, project, *counts, cost, SOURCE_CLAUDE)
                    table.replace(index, request)
                continue
            rows[pair] = len(keys)
            key = _digest(pair)
        add_time(when)
        add_session(name_id(session))
        add_model(name_id(model))
        add_project(name_id(cwd if type(cwd) is str and cwd else fallback_project))
        add_input(fresh)
        add_read(read)
        add_5m(write_5m)
        add_1h(write_1h)
        add_output(output)
        add_cost(NO_COST if cost is None else cost)
        add_source(SOURCE_CLAUDE)
        keys.append(key)
        sidechain.append(sidechain_flag is True)
    return parsed


Facts = tuple[str, str, Any, Any, Any, Any, tuple]  # session, model, ids, cwd, sidechain, usage


def _typed_facts(
    raw: bytes, line: Any, path: Path, parsed: ParsedFile, tool_ids: set[str]
) -> Facts | None:
    """`_general_facts` for a line `claudeschema` decoded: its counts are known to be ints in
    range and its usage fields known, so what is left to check is checked the same way."""
    stats = parsed.stats
    kind = line.type
    if kind != "assistant":
        if kind not in LINE_TYPES:
            stats.note_not_understood(f"Claude line type {short_label(kind)}")
        return None
    message = line.message
    session = line.sessionId
    if message is None or type(session) is not str or not session:
        stats.note_malformed(path)
        return None
    content = message.content
    if b"recall" in raw and type(content) is list:
        for block in content:
            if block.type == "tool_use":
                _note_tool(parsed.recall, tool_ids, session, block.name, block.id)
    model = message.model
    if model == SYNTHETIC_MODEL:
        return None
    usage = message.usage
    try:  # in response_usage's order: the time, the usage's shape, then the stored cost
        when = check_time(line.timestamp)
        if usage is None or type(model) is not str or not model or when is None:
            stats.note_malformed(path)
            return None
        stored = line.costUSD
        stored = float(stored) if stored is not None and check_cost(stored) else None
    except OutOfRange as err:
        stats.note_rejected(path, err.reason)
        return None
    write = usage.cache_creation_input_tokens
    split = usage.cache_creation
    write_1h = 0 if split is None else min(split.ephemeral_1h_input_tokens, write)
    values = (
        when,
        usage.input_tokens,
        usage.cache_read_input_tokens,
        write - write_1h,
        write_1h,
        usage.output_tokens,
        stored,
    )
    return session, model, message.id, line.requestId, line.cwd, line.isSidechain, values


def _general_facts(
    raw: bytes, line: Any, path: Path, parsed: ParsedFile, tool_ids: set[str]
) -> Facts | None:
    """What one line holds: a response's (session, model, message id, request id, cwd,
    isSidechain, `response_usage` values), or None, having counted a line that is not one."""
    stats = parsed.stats
    if type(line) is not dict:
        stats.note_malformed(path)
        return None
    kind = line.get("type")
    if kind != "assistant":
        if kind not in LINE_TYPES:
            stats.note_not_understood(f"Claude line type {short_label(kind)}")
        return None
    message = line.get("message")
    if type(message) is not dict:
        stats.note_malformed(path)
        return None
    session = line.get("sessionId")
    if type(session) is not str or not session:
        stats.note_malformed(path)
        return None
    if b"recall" in raw:  # the tool's name; a cheap test before walking the blocks
        content = message.get("content")
        if type(content) is list:
            for block in content:
                if type(block) is dict and block.get("type") == "tool_use":
                    _note_tool(parsed.recall, tool_ids, session, block.get("name"), block.get("id"))
    model = message.get("model")
    if model == SYNTHETIC_MODEL:
        return None
    try:
        values = response_usage(line, message, model, stats)
    except OutOfRange as err:
        stats.note_rejected(path, err.reason)
        return None
    if values is None:
        stats.note_malformed(path)
        return None
    ids = (message.get("id"), line.get("requestId"))
    return session, model, *ids, line.get("cwd"), line.get("isSidechain"), values


def _digest(pair: tuple[str, str]) -> bytes:
    """The merge key as kept across files: 16 bytes, whatever the ids' length."""
    data = f"{pair[0]}\x00{pair[1]}".encode("utf-8", "surrogatepass")  # a lone surrogate
    return hashlib.blake2b(data, digest_size=DEDUPE_KEY_BYTES).digest()  # from a JSON escape


def _may_hold_a_response(raw: bytes) -> bool:
    return b'"assistant"' in raw


def _note_tool(
    found: list[tuple[str, str]], seen: set[str], session: str, name: Any, tool_id: Any
) -> None:
    """Note a tool_use block if it calls recall (`mcp__<server>__recall`), once per id."""
    if not (isinstance(name, str) and RECALL_TOOL.match(name)):
        return
    if isinstance(tool_id, str) and tool_id:
        if tool_id in seen:  # the same block copied again within this file
            return
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
