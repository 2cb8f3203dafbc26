"""Drive the recall server through the MCP SDK's own client, in process, for real."""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client

from tests.helpers import HashingEmbedder, write_tree
from wherein.plugin.schema import result_schema
from wherein.plugin.server import create_server

REPO = {
    "app/routing.py": (
        "class Router:\n"
        "    def add_route(self, path, handler):\n"
        "        '''Register a handler for a URL path.'''\n"
        "        self.routes[path] = handler\n"
    ),
    "app/retry.py": (
        "def retry_with_backoff(call, attempts=3):\n"
        "    '''Call again after a failure, waiting longer each time.'''\n"
        "    for attempt in range(attempts):\n"
        "        try:\n"
        "            return call()\n"
        "        except ConnectionError:\n"
        "            sleep(2 ** attempt)\n"
    ),
    "app/cookies.py": "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "docs/guide.md": "# Guide\n\nRoutes are registered on the Router.\n",
}


@pytest.fixture
def repo(tmp_path) -> Path:
    return write_tree(tmp_path / "repo", REPO).resolve()


class RecallClient:
    """An SDK client that checks every result: against the result schema, and that both
    channels carry the same text (some hosts show the model only one of them)."""

    def __init__(self, client: Client, schema: dict[str, Any]) -> None:
        self.client = client
        self.schema = schema
        self.results: list[dict[str, Any]] = []

    async def recall(self, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool("recall", arguments)
        structured = result.structured_content
        assert structured is not None
        jsonschema.validate(structured, self.schema)
        assert result.content[0].text == structured["text"]
        assert bool(result.is_error) == (not structured["ok"])
        assert json.loads(json.dumps(structured)) == structured
        self.results.append(structured)
        return structured


def run_session(
    workspace: Path,
    steps: Callable[[RecallClient], Awaitable[Any]],
    mode: str = "legacy",
) -> Any:
    """Open one MCP session on `workspace`, run `steps`, close it (which ends the session)."""

    async def main() -> Any:
        async with Client(create_server(workspace), mode=mode) as client:
            listed = await client.list_tools()
            (tool,) = listed.tools
            assert tool.output_schema is None
            return await steps(RecallClient(client, result_schema()))

    return anyio.run(main)


class GatedEmbedder(HashingEmbedder):
    """Embeds the first batch at once, then waits for the test to open the gate."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate

    def embed(self, texts):
        if self.calls >= 1:
            assert self.gate.wait(60), "the session end never released the gate"
        return super().embed(texts)
