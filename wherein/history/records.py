"""What a transcript holds for history: conversations of verbatim user and assistant messages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

__all__ = [
    "AUTHOR_ASSISTANT",
    "AUTHOR_USER",
    "AUTHORS",
    "SOURCE_CLAUDE",
    "SOURCE_CODEX",
    "SOURCES",
    "Conversation",
    "Message",
    "format_date",
]

SOURCE_CLAUDE = "claude"
SOURCE_CODEX = "codex"
SOURCES = (SOURCE_CLAUDE, SOURCE_CODEX)
AUTHOR_USER = "user"
AUTHOR_ASSISTANT = "assistant"
AUTHORS = (AUTHOR_USER, AUTHOR_ASSISTANT)


@dataclass(frozen=True)
class Message:
    """One message as the transcript holds it: who wrote it, when, and its exact text."""

    author: str  # AUTHOR_USER or AUTHOR_ASSISTANT
    time: float | None  # epoch seconds, UTC; None when the line carried no timestamp
    text: str


@dataclass(frozen=True)
class Conversation:
    """One transcript file's messages in order; `position` of a message is its index + 1."""

    source: str  # SOURCE_CLAUDE or SOURCE_CODEX
    session: str  # the agent's own id for the conversation
    project: str  # the working directory the agent ran in, "" when unknown
    messages: tuple[Message, ...]


def format_date(time: float | None) -> str | None:
    """ISO-8601 UTC to the second (`2026-11-02T10:00:00Z`), or None."""
    if time is None:
        return None
    moment = datetime.fromtimestamp(time, tz=timezone.utc).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")
