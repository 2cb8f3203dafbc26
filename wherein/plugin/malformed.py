"""Every line a client sends is answered: a malformed one with JSON-RPC's own error.

The MCP SDK's stdio transport hands the server an exception for a line that is not JSON or
not a JSON-RPC message, and the server drops it: a client that sent `{"id": 15, ...}` with
a bad `params` waits on id 15 for ever. `AnsweringReadStream` stands between the two and
answers each such line itself, as JSON-RPC 2.0 says: -32700 for text that is not JSON (to
pydantic's parser, which refuses some JSON the standard library reads), -32600 for JSON that
is no message, with the request's id when it had a usable one (else null), and reads on.

A request whose id MCP does not allow (null, a fraction, `2.0`, true, an object or a list:
MCP wants a string or an integer) is read by the transport as a notification, id dropped, and
never answered: `checked_line` turns such a line into one the transport refuses, answered
-32600 with a null id, as JSON-RPC answers a request whose id cannot be read.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["AnsweringReadStream", "checked_line", "malformed_answer"]

log = logging.getLogger(__name__)


def malformed_answer(error: Exception) -> SessionMessage:
    """The JSON-RPC error answering a line the transport could not read as a message."""
    problems = error.errors() if isinstance(error, ValidationError) else []
    if any(problem["type"] == "json_invalid" for problem in problems):
        code, message = types.PARSE_ERROR, "Parse error: the line is not JSON."
    elif any(_unusable_id_of(problem.get("input")) for problem in problems):
        code = types.INVALID_REQUEST
        message = "Invalid request: an MCP request's id must be a string or an integer."
    else:
        code, message = types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message."
    answer = types.JSONRPCError(
        jsonrpc="2.0", id=_request_id(problems), error=types.ErrorData(code=code, message=message)
    )
    return SessionMessage(answer)


def _request_id(problems: list[Any]) -> int | str | None:
    """The id the malformed message gave, when one of the problems quotes it whole.

    A line pydantic's parser refuses may still be JSON the standard library reads: a lone
    surrogate escaped (`"\\ud800"`), or nesting past its depth limit of 255. Its id is read
    from the line then, so the client waiting on it is answered.
    """
    for problem in problems:
        given = problem.get("input")
        if problem.get("type") == "json_invalid" and isinstance(given, (str, bytes)):
            given = _loaded(given)
        if isinstance(given, dict) and _usable_id(given.get("id")):
            return given["id"]
    return None


def _usable_id(value: Any) -> bool:
    """Whether `value` is an id MCP allows: a string or an integer (a bool is no integer)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


# What `checked_line` puts in place of a request whose id MCP does not allow: no JSON-RPC
# message, so the transport refuses it and `malformed_answer` words why.
UNUSABLE_ID = "wherein_unusable_request_id"


def checked_line(line: str) -> str:
    """`line`, or a stand-in the transport refuses when it is a request with an id MCP does not
    allow. A notification (`notifications/...`) with a null id passes as the notification it is.
    """
    if '"' not in line:  # no JSON object, or not one with a method
        return line
    message = _loaded(line)
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        return line
    found, method = message["id"], message["method"]
    if _usable_id(found):
        return line
    if found is None and isinstance(method, str) and method.startswith("notifications/"):
        return line
    ending = "\n" if line.endswith("\n") else ""
    return json.dumps({"jsonrpc": "2.0", UNUSABLE_ID: True}) + ending


def _unusable_id_of(given: Any) -> bool:
    return isinstance(given, dict) and given.get(UNUSABLE_ID) is True


def _loaded(line: str | bytes) -> Any:
    """The line as the standard library's JSON reader reads it, or None."""
    try:
        return json.loads(line, parse_int=_integer)
    except (ValueError, RecursionError):  # not JSON, or nested past the recursion limit
        return None


def _integer(digits: str) -> int | float:
    """An integer of the line, or NaN (no usable id) for one longer than Python converts
    (`sys.get_int_max_str_digits()`): pydantic's parser refuses such a number too, and the
    request holding it must still be answered on its id."""
    try:
        return int(digits)
    except ValueError:
        return math.nan


class AnsweringReadStream:
    """The transport's read stream, its exceptions answered on `write_stream`, not passed on.

    It keeps the stream protocol the server reads (`receive`, async iteration, `aclose`,
    async with) and the sender's context the transport records (`last_context`).
    """

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            log.info("answered a line that is not a JSON-RPC message: %s", type(item).__name__)
            await self._write.send(malformed_answer(item))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
