"""`wherein serve` as a subprocess: stdout carries only JSON-RPC; logs go to stderr."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

import anyio
import jsonschema
from mcp import Client, StdioServerParameters

from tests.helpers import MCP_INITIALIZE
from wherein.plugin.schema import result_schema

# A wait that bounds a broken server instead of hanging the suite; never a speed assertion.
RESPONSE_DEADLINE_S = 120

# `wherein serve`, with the search wrapped by a noisy "library" that prints (buffered) and
# writes straight to fd 1, as native code might: neither may reach the protocol stream. It
# reads fd 0 too, as a child process might: it must meet its end, not the client's messages.
NOISY_SERVE = """
import os, sys
import wherein.plugin.tool as tool
real = tool.run_search
def noisy(*args, **kwargs):
    print("stray print from a library")
    os.write(1, b"stray bytes on fd 1\\n")
    print("fd 0 gave", os.read(0, 100), file=sys.stderr)
    return real(*args, **kwargs)
tool.run_search = noisy
from wherein.cli import main
sys.exit(main(sys.argv[1:]))
"""


class RawSession:
    """A JSON-RPC conversation with `wherein serve`, one line at a time, as a host holds it."""

    def __init__(self, workspace, env, stderr_path) -> None:
        # stderr goes to a file: a pipe nobody drains could fill and stall the server.
        self.stderr_path = stderr_path
        with open(stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-c", NOISY_SERVE, "serve", "--workspace", str(workspace)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
            )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def initialize(self) -> dict:
        """Send `initialize` as id 1, as a host does first; the server's answer."""
        self.send(MCP_INITIALIZE)
        return self.response(1)

    def send(self, message: dict) -> None:
        self.send_line(json.dumps(message).encode())

    def send_line(self, line: bytes) -> None:
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def next_message(self) -> dict:
        line = self.lines.get(timeout=RESPONSE_DEADLINE_S)
        assert line, "the server closed stdout"
        self.stdout.append(line)
        return json.loads(line)

    def response(self, request_id: int) -> dict:
        """Read lines until the response to `request_id`; every line must be JSON-RPC."""
        while True:
            line = self.lines.get(timeout=RESPONSE_DEADLINE_S)
            assert line, "the server closed stdout before answering"
            self.stdout.append(line)
            message = json.loads(line)
            assert message["jsonrpc"] == "2.0"
            if message.get("id") == request_id:
                return message

    def close(self) -> tuple[int, list[bytes], str]:
        self.process.stdin.close()
        code = self.process.wait(timeout=RESPONSE_DEADLINE_S)
        rest = []
        while (line := self.lines.get(timeout=RESPONSE_DEADLINE_S)) != b"":
            rest.append(line)
        self.process.stdout.close()
        return code, self.stdout + rest, self.stderr_path.read_text()


def test_serve_over_stdio_writes_only_protocol_to_stdout(repo, tmp_path):
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)  # keep the stray print in a buffer, as hosts run us
    session = RawSession(repo, env, tmp_path / "stderr.txt")
    init = session.initialize()
    assert init["result"]["serverInfo"]["name"] == "wherein"
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    (tool,) = session.response(2)["result"]["tools"]
    assert tool["name"] == "recall" and "outputSchema" not in tool
    session.send(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": "register a URL handler"}},
        }
    )
    called = session.response(3)["result"]
    session.send(
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {
                "name": "recall",
                "arguments": {"action": "index", "run_in_background": False},
            },
        }
    )
    indexed = session.response(4)["result"]
    code, stdout, stderr = session.close()

    assert code == 0, stderr
    for line in stdout:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0" and ("id" in message or "method" in message)
    for result in (called, indexed):
        assert result["isError"] is False
        jsonschema.validate(result["structuredContent"], result_schema())
        assert result["content"][0]["text"] == result["structuredContent"]["text"]
    assert called["structuredContent"]["results"][0][0] == "app/routing.py"
    assert indexed["structuredContent"]["job"]["state"] == "done"
    assert "recall session" in stderr
    assert "stray print from a library" in stderr and "stray bytes on fd 1" in stderr
    assert "fd 0 gave b''" in stderr


MALFORMED = [
    (b"not json", None, -32700),
    (b'{"jsonrpc":"2.0","id":22,"method":"ping"', None, -32700),  # cut short
    (b'{"jsonrpc":"2.0","id":15,"method":"tools/call","params":"x"}', 15, -32600),
    (b'{"jsonrpc":"2.0","id":11}', 11, -32600),
    (b'{"jsonrpc":"1.0","id":"twelve","method":"ping"}', "twelve", -32600),
    (b"[1, 2]", None, -32600),
    (b"\xff\xfe", None, -32700),
    # JSON to the standard library, not to the SDK's parser: a lone surrogate escaped, and
    # nesting past its 255 levels. Each is answered on its own id.
    (b'{"jsonrpc":"2.0","id":31,"method":"ping","params":{"q":"a\\ud800b"}}', 31, -32700),
    (
        b'{"jsonrpc":"2.0","id":32,"method":"ping","params":' + b"[" * 300 + b"]" * 300 + b"}",
        32,
        -32700,
    ),
    # An id MCP does not allow (a string or an integer): the transport read each as a
    # notification, its id dropped, and nothing answered it.
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":2.0,"method":"tools/list"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":{"n":1},"method":"tools/call","params":{}}', None, -32600),
    (b'{"jsonrpc":"2.0","id":[7],"method":"ping"}', None, -32600),
]


def test_a_line_that_is_no_json_rpc_message_is_answered_with_its_error(repo, tmp_path):
    """JSON-RPC 2.0 answers every request: a client that sent a malformed one must not wait
    on its id for ever. Each gets -32700 or -32600, with its id when it gave a usable one,
    and the server reads on."""
    session = RawSession(repo, dict(os.environ), tmp_path / "stderr.txt")
    session.initialize()
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for line, request_id, code in MALFORMED:
        session.send_line(line)
        answer = session.next_message()
        assert answer["id"] == request_id and answer["error"]["code"] == code, (line, answer)
    # A notification with a null id is still the notification it names, unanswered.
    session.send({"jsonrpc": "2.0", "id": None, "method": "notifications/initialized"})
    session.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert session.next_message() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    code, _, stderr = session.close()
    assert code == 0, stderr


def test_serve_with_stdin_closed_says_so_in_one_sentence(repo):
    """A process started with fd 0 closed has no `sys.stdin`: no client, and no traceback."""
    done = subprocess.run(
        ["sh", "-c", 'exec "$0" -m wherein.cli serve --workspace "$1" <&-', sys.executable, repo],
        capture_output=True,
        text=True,
        timeout=RESPONSE_DEADLINE_S,
        env=dict(os.environ),
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("wherein: wherein serve reads its MCP client on standard input")


def test_sdk_stdio_client_lists_and_calls_recall(repo):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wherein.cli", "serve"],
        env=dict(os.environ),
        cwd=str(repo),
    )

    async def main():
        async with Client(params, mode="legacy") as client:
            listed = await client.list_tools()
            status = await client.call_tool("recall", {"action": "status"})
            return listed, status

    listed, status = anyio.run(main)
    assert [tool.name for tool in listed.tools] == ["recall"]
    assert status.structured_content["workspace"] == str(repo)
    assert status.is_error is False
