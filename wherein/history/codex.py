"""Messages from a Codex CLI rollout (`sessions/YYYY/MM/DD/rollout-*.jsonl`).

Messages are the `response_item` lines of type `message` with role `user` or `assistant`
(what the model saw and said). The same words also appear as `event_msg` user_message and
agent_message lines; those are skipped so nothing is counted twice. Rollouts written before
September 2025 have bare items without the `response_item` envelope and no timestamps; they
are read too, with no date. Reasoning, tool calls and their output are not messages; nor are
the environment context and AGENTS.md instructions Codex sends as user input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wherein.history.harness import keep_text
from wherein.history.records import AUTHORS, SOURCE_CODEX, Conversation, Message
from wherein.meter.jsonl import ReadStats, iter_json_lines, parse_time

__all__ = ["read_codex_conversation"]

TEXT_BLOCKS = ("input_text", "output_text", "text")
BLOCK_SEPARATOR = "\n\n"


def read_codex_conversation(path: Path, stats: ReadStats | None = None) -> Conversation:
    """The user and assistant messages of one rollout, in order."""
    stats = stats if stats is not None else ReadStats()
    session = ""
    project = ""
    messages: list[Message] = []
    for line in iter_json_lines(path, stats):
        if not isinstance(line, dict):
            continue
        kind = line.get("type")
        payload = line.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            session = session or _string(payload.get("id"))
            project = project or _string(payload.get("cwd"))
            continue
        if kind == "turn_context" and isinstance(payload, dict):
            project = project or _string(payload.get("cwd"))
            continue
        if kind == "response_item" and isinstance(payload, dict):
            item = payload
        elif kind == "message":  # the older, unwrapped shape
            item = line
        else:
            if kind is None and not session:  # the older shape's first line: session metadata
                session = _string(line.get("id"))
            continue
        if item.get("type") != "message" or item.get("role") not in AUTHORS:
            continue
        text = keep_text(BLOCK_SEPARATOR.join(_texts(item.get("content"))))
        if text is not None:
            messages.append(Message(item["role"], parse_time(line.get("timestamp")), text))
    return Conversation(
        source=SOURCE_CODEX,
        session=session or path.stem,
        project=project,
        messages=tuple(messages),
    )


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") in TEXT_BLOCKS
        and isinstance(block.get("text"), str)
    ]


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""
