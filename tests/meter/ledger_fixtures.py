"""Hand-written ledgers in the shapes Claude Code, Codex CLI and wherein's tool write.

Every number here feeds a hand-computed total in the tests; change one and recompute.

Claude Code (sessions A, B, C; prices per million tokens):
  A1  sonnet-4-5  streamed twice (output 1 placeholder, then 150); 1000 tokens written 1h
      in 10, write-1h 1000, out 150             = (30 + 6000 + 2250) e-6 = $0.008280
  A2  sonnet-4-5  in 5, write-5m 200 (no split), read 1000, out 50
                                                = (15 + 750 + 300 + 750) e-6 = $0.001815
  S1  haiku-4-5   subagent (isSidechain) of session A: in 100, out 20
                                                = (100 + 100) e-6 = $0.000200
  B1  opus-4-5    streamed twice (output 2, then 40, the second with the recall tool_use),
      copied again into a resumed transcript: in 3, read 2000, out 40
                                                = (15 + 1000 + 1000) e-6 = $0.002015
  B2  opus-4-5    in 7, write-5m 500, read 2000, out 60
                                                = (35 + 3125 + 1000 + 1500) e-6 = $0.005660
  C1  claude-mystery-9 (not in the table): in 1000, out 100 -> unpriced
  C2  sonnet-4-5 with costUSD 0.25 stored: in 200, out 10 -> $0.25 as stored
  plus: a user line, a truncated (malformed) line, a <synthetic> line.

Codex CLI (session codex-s1, gpt-5-codex at 1.25 / cached 0.125 / out 10):
  totals (1000 in, 600 cached, 100 out) -> new 400, read 600, out 100 = $0.001575
  repeated, then (2500, 1800, 250) -> new 300, read 1200, out 150      = $0.002025
  repeated again; one event with a non-numeric total (malformed).
"""

from __future__ import annotations

import json
from pathlib import Path

SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-5-20251101"
HAIKU = "claude-haiku-4-5-20251001"


def _usage(inp, write, read, out, split=None):
    usage = {
        "input_tokens": inp,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": out,
        "service_tier": "standard",
    }
    if split is not None:
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": split[0],
            "ephemeral_1h_input_tokens": split[1],
        }
    return usage


def _assistant(
    session,
    when,
    msg_id,
    req_id,
    model,
    usage,
    content,
    *,
    sidechain=False,
    cwd="/home/me/app",
    cost=None,
):
    line = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.0.14",
        "gitBranch": "main",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
        "requestId": req_id,
        "type": "assistant",
        "uuid": f"uuid-{msg_id}-{len(content)}",
        "timestamp": when,
    }
    if cost is not None:
        line["costUSD"] = cost
    return line


def _user(session, when, text):
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "sessionId": session,
        "message": {"role": "user", "content": text},
        "uuid": f"u-{when}",
        "timestamp": when,
    }


def _write(path: Path, lines: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def write_claude_projects(config_dir: Path) -> Path:
    """Write sessions A, B and C under `config_dir/projects`; returns the projects folder."""
    projects = config_dir / "projects"
    think = [{"type": "thinking", "thinking": "Let me look.", "signature": "sig"}]
    read_tool = [{"type": "tool_use", "id": "toolu_a1", "name": "Read", "input": {"path": "x"}}]
    recall_tool = [
        {
            "type": "tool_use",
            "id": "toolu_b1",
            "name": "mcp__wherein__recall",
            "input": {"query": "where are retries handled"},
        }
    ]
    a = "sess-a"
    _write(
        projects / "-home-me-app" / f"{a}.jsonl",
        [
            _user(a, "2026-11-02T10:00:00.000Z", "fix the retry bug"),
            _assistant(
                a,
                "2026-11-02T10:00:01.000Z",
                "msg_a1",
                "req_a1",
                SONNET,
                _usage(10, 1000, 0, 1, split=(0, 1000)),
                think,
            ),
            _assistant(
                a,
                "2026-11-02T10:00:03.000Z",
                "msg_a1",
                "req_a1",
                SONNET,
                _usage(10, 1000, 0, 150, split=(0, 1000)),
                read_tool,
            ),
            _user(a, "2026-11-02T10:00:04.000Z", [{"type": "tool_result", "content": "..."}]),
            _assistant(
                a,
                "2026-11-02T10:00:05.000Z",
                "msg_a2",
                "req_a2",
                SONNET,
                _usage(5, 200, 1000, 50),
                [{"type": "text", "text": "Done."}],
            ),
            '{"type":"assistant","sessionId":"sess-a","message":{"id":"msg_a3","usage":{"inp',
            _assistant(
                a,
                "2026-11-02T10:00:06.000Z",
                "msg_syn",
                "req_syn",
                "<synthetic>",
                _usage(0, 0, 0, 0),
                [{"type": "text", "text": "No response requested."}],
            ),
        ],
    )
    _write(
        projects / "-home-me-app" / a / "subagents" / "agent-1.jsonl",
        [
            _assistant(
                a,
                "2026-11-02T10:00:02.000Z",
                "msg_s1",
                "req_s1",
                HAIKU,
                _usage(100, 0, 0, 20),
                [{"type": "text", "text": "found it"}],
                sidechain=True,
            ),
        ],
    )
    b = "sess-b"
    b1_final = _assistant(
        b,
        "2026-11-03T09:00:02.000Z",
        "msg_b1",
        "req_b1",
        OPUS,
        _usage(3, 0, 2000, 40),
        recall_tool,
        cwd="/home/me/web",
    )
    _write(
        projects / "-home-me-web" / f"{b}.jsonl",
        [
            _assistant(
                b,
                "2026-11-03T09:00:01.000Z",
                "msg_b1",
                "req_b1",
                OPUS,
                _usage(3, 0, 2000, 2),
                [{"type": "text", "text": "Searching."}],
                cwd="/home/me/web",
            ),
            b1_final,
            _assistant(
                b,
                "2026-11-03T09:00:05.000Z",
                "msg_b2",
                "req_b2",
                OPUS,
                _usage(7, 500, 2000, 60, split=(500, 0)),
                [{"type": "text", "text": "Fixed."}],
                cwd="/home/me/web",
            ),
        ],
    )
    # A resumed session copies earlier lines, tool_use block included, into a new file.
    _write(projects / "-home-me-web" / "sess-z-resumed.jsonl", [b1_final])
    c = "sess-c"
    _write(
        projects / "-home-me-lab" / f"{c}.jsonl",
        [
            _assistant(
                c,
                "2026-11-05T20:00:00.000Z",
                "msg_c1",
                "req_c1",
                "claude-mystery-9",
                _usage(1000, 0, 0, 100),
                [{"type": "text", "text": "?"}],
                cwd="/home/me/lab",
            ),
            _assistant(
                c,
                "2026-11-05T20:01:00.000Z",
                "msg_c2",
                "req_c2",
                SONNET,
                _usage(200, 0, 0, 10),
                [{"type": "text", "text": "ok"}],
                cwd="/home/me/lab",
                cost=0.25,
            ),
        ],
    )
    return projects


def _event(when, kind, payload):
    return {"timestamp": when, "type": kind, "payload": payload}


def _token_count(when, inp, cached, out, reasoning=0):
    usage = {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": reasoning,
        "total_tokens": inp + out,
    }
    info = {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 272000}
    return _event(when, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def write_codex_sessions(codex_home: Path) -> Path:
    """Write one Codex rollout under `codex_home/sessions/2026/11/04`."""
    path = codex_home / "sessions" / "2026" / "11" / "04"
    path = path / "rollout-2026-11-04T09-00-00-019a5b2c-0000-7000-8000-000000000001.jsonl"
    meta = {
        "id": "codex-s1",
        "timestamp": "2026-11-04T09:00:00.000Z",
        "cwd": "/home/me/api",
        "originator": "codex_cli_rs",
        "cli_version": "0.58.0",
    }
    turn = {
        "cwd": "/home/me/api",
        "approval_policy": "on-request",
        "model": "gpt-5-codex",
        "effort": "medium",
        "summary": "auto",
    }
    bad = _token_count("2026-11-04T09:00:09.000Z", 3000, 1800, 260)
    bad["payload"]["info"]["total_token_usage"]["input_tokens"] = "lots"
    return _write(
        path,
        [
            _event("2026-11-04T09:00:00.000Z", "session_meta", meta),
            _event("2026-11-04T09:00:00.100Z", "turn_context", turn),
            _event(
                "2026-11-04T09:00:00.200Z",
                "event_msg",
                {"type": "token_count", "info": None, "rate_limits": None},
            ),
            _event(
                "2026-11-04T09:00:00.300Z",
                "event_msg",
                {"type": "user_message", "message": "add a health check"},
            ),
            _token_count("2026-11-04T09:00:03.000Z", 1000, 600, 100, reasoning=40),
            _token_count("2026-11-04T09:00:03.100Z", 1000, 600, 100, reasoning=40),
            _token_count("2026-11-04T09:00:07.000Z", 2500, 1800, 250, reasoning=90),
            _token_count("2026-11-04T09:00:07.100Z", 2500, 1800, 250, reasoning=90),
            bad,
        ],
    )


def write_usage(path: Path) -> Path:
    """wherein's usage log: recall calls joined to sessions by id."""

    def row(when, session, action, returned, source, results=3):
        return {
            "time": when,
            "session": session,
            "workspace": "/home/me/api",
            "action": action,
            "results": results,
            "returned_chars": returned,
            "source_chars": source,
            "paths_hash": "9f2c",
        }

    return _write(
        path,
        [
            row("2026-11-04T09:00:02Z", "codex-s1", "search", 2000, 12000),
            row("2026-11-03T09:00:03Z", "sess-b", "search", 800, 4000),
            row("2026-11-02T10:00:02Z", "sess-a", "status", 0, 0, results=0),
            row("2026-11-06T10:00:00Z", "ghost", "search", 100, 100),
            '{"time": "2026-11-04T09:00:02Z", "session": "codex-s1"',
        ],
    )
