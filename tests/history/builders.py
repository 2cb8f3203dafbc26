"""Transcript lines in the shapes Claude Code and Codex write, for tests to assemble."""

from __future__ import annotations

import json
from pathlib import Path

PROJECT = "/home/me/shop"


def iso(second: int) -> str:
    """A timestamp `second` seconds after 2026-11-02T10:00:00Z."""
    minute, sec = divmod(second, 60)
    hour, minute = divmod(minute, 60)
    return f"2026-11-02T{10 + hour:02d}:{minute:02d}:{sec:02d}.000Z"


def claude_user(session: str, second: int, content, **extra) -> dict:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": PROJECT,
        "sessionId": session,
        "type": "user",
        "message": {"role": "user", "content": content},
        "uuid": f"u-{session}-{second}",
        "timestamp": iso(second),
        **extra,
    }


def claude_assistant(session: str, second: int, message_id: str, blocks: list, **extra) -> dict:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "cwd": PROJECT,
        "sessionId": session,
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": extra.pop("model", "claude-sonnet-4-6"),
            "content": blocks,
            "usage": {"input_tokens": 3, "output_tokens": 20},
        },
        "requestId": f"req-{message_id}",
        "uuid": f"a-{message_id}-{second}",
        "timestamp": iso(second),
        **extra,
    }


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def claude_conversation(session: str, turns: list[tuple[str, str]]) -> list[dict]:
    """Alternating user and assistant lines from (author, text) pairs, one second apart."""
    lines = []
    for second, (author, words) in enumerate(turns):
        if author == "user":
            lines.append(claude_user(session, second, words))
        else:
            lines.append(
                claude_assistant(session, second, f"msg-{session}-{second}", [text(words)])
            )
    return lines


def codex_line(second: int, kind: str, payload: dict) -> dict:
    return {"timestamp": iso(second), "type": kind, "payload": payload}


def codex_message(role: str, words: str) -> dict:
    block = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": block, "text": words}]}


def write_lines(path: Path, lines: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(body, encoding="utf-8")
    return path


def append_lines(path: Path, lines: list) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
