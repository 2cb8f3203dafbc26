"""Messages from a Claude Code transcript (`projects/<project>/<session>.jsonl`).

Claude Code writes one line per content block of a response, so the text of one assistant
message can be spread over several lines sharing `message.id` (and older builds repeated a
block while streaming): blocks are joined per id, each distinct block once. Tool calls,
thinking and tool results are not messages; neither are subagent (sidechain) lines, whose
"user" turns were written by the parent model, nor compaction summaries and meta lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wherein.history.harness import keep_text
from wherein.history.records import (
    AUTHOR_ASSISTANT,
    AUTHOR_USER,
    SOURCE_CLAUDE,
    Conversation,
    Message,
)
from wherein.meter.claude import PROJECTS_DIR, SYNTHETIC_MODEL
from wherein.meter.jsonl import ReadStats, iter_json_lines, parse_time

__all__ = ["read_claude_conversation"]

# Blocks of one message are joined as paragraphs, as Claude Code shows them.
BLOCK_SEPARATOR = "\n\n"


class _Draft:
    """A message whose blocks may still arrive on later lines."""

    __slots__ = ("author", "blocks", "time")

    def __init__(self, author: str, time: float | None) -> None:
        self.author = author
        self.time = time
        self.blocks: list[str] = []

    def add(self, texts: list[str]) -> None:
        for text in texts:
            if text not in self.blocks:
                self.blocks.append(text)


def read_claude_conversation(path: Path, stats: ReadStats | None = None) -> Conversation:
    """The user and assistant messages of one transcript, in order."""
    stats = stats if stats is not None else ReadStats()
    drafts: list[_Draft] = []
    by_message_id: dict[str, _Draft] = {}
    session = ""
    project = ""
    for line in iter_json_lines(path, stats):
        if not isinstance(line, dict) or line.get("isSidechain") is True:
            continue
        kind = line.get("type")
        message = line.get("message")
        if kind not in (AUTHOR_USER, AUTHOR_ASSISTANT) or not isinstance(message, dict):
            continue
        if not session and isinstance(line.get("sessionId"), str):
            session = line["sessionId"]
        if not project and isinstance(line.get("cwd"), str):
            project = line["cwd"]
        when = parse_time(line.get("timestamp"))
        if kind == AUTHOR_USER:
            texts = _user_texts(line, message)
            if texts:
                draft = _Draft(AUTHOR_USER, when)
                draft.add(texts)
                drafts.append(draft)
            continue
        if message.get("model") == SYNTHETIC_MODEL:
            continue  # a notice Claude Code wrote itself ("No response requested.")
        texts = _text_blocks(message.get("content"))
        if not texts:
            continue
        message_id = message.get("id")
        draft = by_message_id.get(message_id) if isinstance(message_id, str) else None
        if draft is None:
            draft = _Draft(AUTHOR_ASSISTANT, when)
            drafts.append(draft)
            if isinstance(message_id, str) and message_id:
                by_message_id[message_id] = draft
        draft.add(texts)
    messages = []
    for draft in drafts:
        text = keep_text(BLOCK_SEPARATOR.join(draft.blocks))
        if text is not None:
            messages.append(Message(draft.author, draft.time, text))
    return Conversation(
        source=SOURCE_CLAUDE,
        session=session or path.stem,
        project=project or _project_folder(path),
        messages=tuple(messages),
    )


def _user_texts(line: dict, message: dict) -> list[str]:
    """What the person typed on a user line; nothing for tool results, meta and summaries."""
    if line.get("isMeta") is True or line.get("isCompactSummary") is True:
        return []
    if "toolUseResult" in line:
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return []
    return _text_blocks(content)


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _project_folder(path: Path) -> str:
    """The encoded project folder under `projects/` (e.g. `-home-me-repo`), else the parent."""
    parts = path.parts
    if PROJECTS_DIR in parts:
        position = len(parts) - 1 - parts[::-1].index(PROJECTS_DIR)
        if position + 1 < len(parts) - 1:
            return parts[position + 1]
    return path.parent.name
