"""A request whose id MCP does not allow is answered, in words that name the id."""

from __future__ import annotations

import json

import pytest
from mcp import types
from pydantic import ValidationError

from wherein.plugin.malformed import checked_line, malformed_answer


def _answer(line: str) -> dict:
    try:
        types.jsonrpc_message_adapter.validate_json(checked_line(line), by_name=False)
    except ValidationError as error:
        return malformed_answer(error).message.model_dump(by_alias=True, exclude_unset=True)
    raise AssertionError(f"the transport took {line!r} for a message")


@pytest.mark.parametrize("given", ["1.5", "2.0", "null", "true", '{"n": 1}', "[7]"])
def test_a_request_with_an_id_mcp_does_not_allow_is_refused_with_why(given):
    answer = _answer(f'{{"jsonrpc": "2.0", "id": {given}, "method": "tools/list"}}\n')
    assert answer["id"] is None and answer["error"]["code"] == types.INVALID_REQUEST
    assert "id must be a string or an integer" in answer["error"]["message"]


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": "three", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": None, "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 3, "result": {}},  # a client's answer to the server
    ],
)
def test_every_other_line_passes_unchanged(message):
    line = json.dumps(message) + "\n"
    assert checked_line(line) == line
    assert checked_line("not json\n") == "not json\n"


def test_a_request_holding_a_number_too_long_to_convert_is_answered_on_its_id():
    # Past 4,300 digits Python's JSON reader refuses an integer, as pydantic's parser does:
    # the id was read from the line with it, so the answer went to id null.
    digits = "9" * 5_000
    limit = (
        f'{{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {{"limit": {digits}}}}}'
    )
    answer = _answer(limit + "\n")
    assert answer["id"] == 9 and answer["error"]["code"] == types.PARSE_ERROR
    as_id = _answer(f'{{"jsonrpc": "2.0", "id": {digits}, "method": "ping"}}\n')
    assert as_id["id"] is None and as_id["error"]["code"] == types.INVALID_REQUEST
