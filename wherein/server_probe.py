"""Start one agent's recall server as the agent would, and hold the conversation it would.

The entry's command, args and env (`${workspaceFolder}` expanded), spoken to over stdio:
`initialize`, then `tools/list`, which must list `recall`, then `recall action=status`,
which must answer with the same text in both channels (some agents give the model the text
content, others only the structured one). Nothing is mocked: a stale entry pointing at a
removed virtualenv fails here the way it would fail in the agent.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from wherein import __version__
from wherein.install.agents import WORKSPACE_VARIABLE
from wherein.untrusted import one_line

__all__ = ["probe_server"]

# A server imports the MCP SDK and opens its session in a few seconds; a minute bounds a wedged
# one without failing a slow machine.
PROBE_DEADLINE_S = 60.0
# How long a server may take to exit once its stdin closes before it is killed.
EXIT_GRACE_S = 5.0
PROTOCOL_VERSION = "2025-06-18"
STDERR_TAIL_CHARS = 300


def probe_server(entry: dict[str, Any], workspace: Path) -> tuple[bool, str]:
    """Start the server `entry` describes, as its agent would, and ask it for its tools.

    Returns:
        Whether it answered `initialize` and listed `recall`, and a sentence saying what
        happened.
    """
    command = str(entry.get("command") or "")
    args = [str(a).replace(WORKSPACE_VARIABLE, str(workspace)) for a in entry.get("args") or []]
    shown = " ".join([command, *args])
    if not command:
        return False, "the entry has no command"
    if os.sep in command:
        if not (os.path.isfile(command) and os.access(command, os.X_OK)):
            return False, f"{command} does not exist or is not executable"
    elif shutil.which(command) is None:
        return False, f"'{command}' is not on PATH"
    env = dict(os.environ)
    env.update({str(k): str(v) for k, v in (entry.get("env") or {}).items()})
    cwd = str(entry.get("cwd") or workspace)
    started = time.monotonic()
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                [command, *args],
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        except OSError as err:
            return False, f"'{shown}' could not start: {err}"
        session = _Session(process, started + PROBE_DEADLINE_S)
        try:
            answered, detail = session.converse()
        finally:
            session.close()
        if not answered:
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace").strip()[-STDERR_TAIL_CHARS:]
            if tail:
                detail = f"{detail}; its stderr ends with: {tail}"
    seconds = time.monotonic() - started
    if answered:
        return True, f"'{shown}' {detail} ({seconds:.1f} s)"
    return False, f"'{shown}' {detail}"


def _status_problem(response: dict[str, Any]) -> str | None:
    """What keeps a `recall action=status` answer from reaching every agent's model, if any.

    Claude Code and VS Code give the model the structured content whenever there is one;
    other agents give it the text content: both must hold the answer, the same text.
    """
    result = response.get("result")
    if not isinstance(result, dict):
        return f"refused recall action=status: {one_line(str(response.get('error')))[:200]}"
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content else None
    shown = first.get("text") if isinstance(first, dict) else None
    structured = result.get("structuredContent")
    text = structured.get("text") if isinstance(structured, dict) else None
    if not isinstance(text, str) or not text:
        return "its status answer has no structured text (Claude Code's model would see none)"
    if shown != text:
        return "its status answer's text content differs from its structured text"
    if result.get("isError"):
        return f"its status call failed: {one_line(text.splitlines()[0])[:200]}"
    return None


class _Session:
    """JSON-RPC over a child's stdin/stdout, one line per message, with one deadline."""

    def __init__(self, process: subprocess.Popen, deadline: float) -> None:
        self.process = process
        self.deadline = deadline
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(b"")

    def _send(self, message: dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def _answer(self, request_id: int) -> dict[str, Any] | str:
        """The response to `request_id`, or a sentence saying why there is none."""
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, self.deadline - time.monotonic()))
            except queue.Empty:
                return f"gave no answer within {PROBE_DEADLINE_S:.0f} s"
            if not line:
                return f"exited with code {self.process.wait()} before answering"
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                return f"wrote something other than JSON-RPC to stdout: {line[:80]!r}"
            if isinstance(message, dict) and message.get("id") == request_id:
                return message

    def converse(self) -> tuple[bool, str]:
        """`initialize`, `notifications/initialized`, `tools/list`; is `recall` listed, and
        does its status answer reach both channels?"""
        try:
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": PROTOCOL_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "wherein-doctor", "version": __version__},
                    },
                }
            )
            init = self._answer(1)
            if isinstance(init, str):
                return False, init
            if "result" not in init:
                return False, f"refused initialize: {init.get('error')}"
            server = init["result"].get("serverInfo", {})
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            self._send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            listed = self._answer(2)
        except (BrokenPipeError, ConnectionResetError):
            return False, f"exited with code {self.process.wait()} before answering"
        if isinstance(listed, str):
            return False, listed
        names = [tool.get("name") for tool in listed.get("result", {}).get("tools", [])]
        who = f"{server.get('name', '?')} {server.get('version', '')}".strip()
        if "recall" not in names:
            return False, f"answers initialize ({who}) but lists no recall tool (tools: {names})"
        try:
            status = {"name": "recall", "arguments": {"action": "status"}}
            self._send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": status})
            called = self._answer(3)
        except (BrokenPipeError, ConnectionResetError):
            return False, f"exited with code {self.process.wait()} before answering recall"
        problem = called if isinstance(called, str) else _status_problem(called)
        if problem:
            return False, f"answers initialize ({who}) and lists recall, but {problem}"
        return True, f"answers initialize ({who}), lists recall and answers its status call"

    def close(self) -> None:
        """Close stdin (how a stdio MCP session ends), kill the server if it lingers."""
        with contextlib.suppress(OSError):  # a server that died leaves a broken pipe
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(timeout=EXIT_GRACE_S)
        self.process.stdout.close()  # type: ignore[union-attr]
