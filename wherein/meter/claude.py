"""Claude Code session transcripts: one request per API response, found in `projects/**/*.jsonl`.

Claude Code writes one line per content block of a response and repeats the response's usage
on each; early streamed lines carry placeholder output counts. Lines are therefore merged on
(message.id, requestId), keeping the line with the largest token total. Subagent transcripts
share their parent's sessionId, so their requests count in the parent session.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wherein.meter.bounds import (
    COUNT_TOO_LARGE,
    MAX_COUNT,
    NEGATIVE_COUNT,
    OutOfRange,
    check_cost,
    check_count,
    check_time,
)
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.table import SOURCE_CLAUDE, Request, RequestTable

__all__ = [
    "PROJECTS_DIR",
    "ClaudeReader",
    "claude_candidates",
    "claude_roots",
    "claude_transcripts",
]

PROJECTS_DIR = "projects"
RECALL_TOOL = re.compile(r"^mcp__.+__recall$")  # mcp__<server>__recall, any server name
# Claude Code writes locally generated notices (API errors, "no response requested") as
# assistant lines with this model and zero usage: they are not billed model calls.
SYNTHETIC_MODEL = "<synthetic>"
DEDUPE_KEY_BYTES = 16  # blake2b-128 of the key: no realistic collision, 1/3 the memory of str
DEDUPE_LARGEST = "largest"
DEDUPE_FIRST = "first"  # ccusage's documented rule, kept for comparison only


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
        self.table = table
        self.stats = stats
        self.dedupe = dedupe
        self.recall_calls: dict[str, int] = {}
        self.sidechain_requests = 0
        self._rows: dict[bytes, int] = {}
        self._tool_ids: set[str] = set()

    def read(self, path: Path) -> None:
        """Read one transcript; a link found under `projects/` is not followed (see jsonl.py)."""
        fallback_project = _project_from_path(path)
        for line in iter_json_lines(path, self.stats):
            if not isinstance(line, dict):
                self.stats.note_malformed(path)
                continue
            if line.get("type") != "assistant":
                continue
            message = line.get("message")
            if not isinstance(message, dict):
                self.stats.note_malformed(path)
                continue
            session = line.get("sessionId")
            if not isinstance(session, str) or not session:
                self.stats.note_malformed(path)
                continue
            self._note_recall(session, message.get("content"))
            if message.get("model") == SYNTHETIC_MODEL:
                continue
            try:
                request = _request(line, message, session, fallback_project)
            except OutOfRange as err:
                self.stats.note_rejected(path, err.reason)
                continue
            if request is None:
                self.stats.note_malformed(path)
                continue
            self._keep(line, message, request)

    def _keep(self, line: dict, message: dict, request: Request) -> None:
        message_id = message.get("id")
        if not isinstance(message_id, str) or not message_id:
            self._add(request, line)  # nothing to merge on: every such line is its own request
            return
        # ccusage falls back to message.id alone when requestId is missing (its #985); so do we.
        request_id = line.get("requestId") if isinstance(line.get("requestId"), str) else ""
        key = hashlib.blake2b(
            f"{message_id}\x00{request_id}".encode(), digest_size=DEDUPE_KEY_BYTES
        ).digest()
        index = self._rows.get(key)
        if index is None:
            self._rows[key] = self._add(request, line)
            return
        self.stats.duplicate_lines += 1
        if self.dedupe == DEDUPE_LARGEST and request.total > self.table.total(index):
            self.table.replace(index, request)

    def _add(self, request: Request, line: dict) -> int:
        index = self.table.add(request)
        if line.get("isSidechain") is True:
            self.sidechain_requests += 1
        return index

    def _note_recall(self, session: str, content: Any) -> None:
        if not isinstance(content, list):
            return
        for block in content:
            if not (isinstance(block, dict) and block.get("type") == "tool_use"):
                continue
            name = block.get("name")
            if not (isinstance(name, str) and RECALL_TOOL.match(name)):
                continue
            tool_id = block.get("id")
            if isinstance(tool_id, str):
                if tool_id in self._tool_ids:  # the same block copied into a resumed session
                    continue
                self._tool_ids.add(tool_id)
            self.recall_calls[session] = self.recall_calls.get(session, 0) + 1


def _request(line: dict, message: dict, session: str, fallback_project: str) -> Request | None:
    """The request one assistant line describes, or None when its usage is malformed.

    Raises:
        OutOfRange: a count, the stored cost or the time is out of range (see bounds.py).
    """
    usage = message.get("usage")
    model = message.get("model")
    when = check_time(line.get("timestamp"))
    if not isinstance(usage, dict) or not isinstance(model, str) or not model or when is None:
        return None
    counts = (
        usage.get("input_tokens"),
        usage.get("cache_creation_input_tokens", 0),
        usage.get("cache_read_input_tokens", 0),
        usage.get("output_tokens"),
    )
    for count in counts:  # inline check_count: this runs once per line
        if type(count) is not int:
            return None
        if not 0 <= count < MAX_COUNT:
            raise OutOfRange(NEGATIVE_COUNT if count < 0 else COUNT_TOO_LARGE)
    input_tokens, cache_write, cache_read, output = counts
    write_1h = 0
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        one_hour = split.get("ephemeral_1h_input_tokens", 0)
        if not check_count(one_hour):
            return None
        # Whatever of the total the split does not put under 1h is billed at the 5-minute
        # rate, Anthropic's default TTL; a split larger than the total is capped by it.
        write_1h = min(one_hour, cache_write)
    cost = line.get("costUSD")
    cwd = line.get("cwd")
    return Request(
        time=when,
        session=session,
        model=model,
        project=cwd if isinstance(cwd, str) and cwd else fallback_project,
        input=input_tokens,
        cache_read=cache_read,
        cache_write_5m=cache_write - write_1h,
        cache_write_1h=write_1h,
        output=output,
        stored_cost=float(cost) if check_cost(cost) else None,  # not a number: priced instead
        source=SOURCE_CLAUDE,
    )


def _project_from_path(path: Path) -> str:
    """The encoded project folder under `projects/` (e.g. `-home-me-repo`), else the parent."""
    parts = path.parts
    if PROJECTS_DIR in parts:
        position = len(parts) - 1 - parts[::-1].index(PROJECTS_DIR)
        if position + 1 < len(parts) - 1:
            return parts[position + 1]
    return path.parent.name
