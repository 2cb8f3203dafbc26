"""`wherein serve`: the MCP server, one tool (`recall`), over stdio.

Built on the official `mcp` SDK's low-level `Server`, so the listing is exactly the one in
schema.py: an input schema and no output schema (schema.py says why). Over stdio nothing but
protocol may reach stdout: the SDK's stdio transport points fd 1 at stderr while it serves, and
logging goes to stderr, each message escaped onto one line (`untrusted.one_line`: a logged
error may name a repository's file).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from wherein import __version__
from wherein.history.prompt import PROMPT_NAME, get_history_prompt, history_prompt
from wherein.plugin.malformed import AnsweringReadStream
from wherein.plugin.schema import DESCRIPTION, TOOL_NAME, input_schema
from wherein.plugin.session import RecallSession
from wherein.plugin.stdin_claim import claimed_stdin, require_stdin
from wherein.plugin.tool import run_recall
from wherein.untrusted import as_text, echo, one_line, visible

__all__ = ["create_server", "recall_tool", "serve"]

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "wherein answers 'where is this handled?' in this repository with a few ranked code "
    "excerpts. Call recall before opening files to find where to look."
)


def recall_tool() -> types.Tool:
    """The one tool this server lists."""
    return types.Tool(
        name=TOOL_NAME,
        title="Find code in this repository",
        description=DESCRIPTION,
        input_schema=input_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=False,  # index and configure write the index and the settings
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )


def create_server(
    workspace: Path, session_name: str | None = None, *, history: bool = True
) -> Server[RecallSession]:
    """An MCP server answering `recall` over `workspace`; each connection is one session.

    With `history`, it also offers the `recall-history` prompt: the person's to invoke, never
    a tool, so the tool list is the same either way.
    """

    @asynccontextmanager
    async def lifespan(_server: Server[RecallSession]) -> AsyncIterator[RecallSession]:
        session = RecallSession(workspace, session_name)
        logger.info("recall session %s on %s", session.id, workspace)
        _start_backfill(session)
        try:
            yield session
        finally:
            await session.aclose()

    async def list_tools(
        ctx: ServerRequestContext[RecallSession], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[recall_tool()])

    async def call_tool(
        ctx: ServerRequestContext[RecallSession], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name != TOOL_NAME:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool {echo(params.name)}. This server has one tool: {TOOL_NAME}.",
            )
        outcome = await run_recall(
            ctx.lifespan_context, dict(params.arguments or {}), ctx.session.report_progress
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    async def list_prompts(
        ctx: ServerRequestContext[RecallSession], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[history_prompt()])

    async def get_prompt(
        ctx: ServerRequestContext[RecallSession], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != PROMPT_NAME:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt {echo(params.name)}.")
        arguments = {name: as_text(value) for name, value in (params.arguments or {}).items()}
        return await get_history_prompt(params.model_copy(update={"arguments": arguments}))

    return Server(
        "wherein",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts if history else None,
        on_get_prompt=get_prompt if history else None,
    )


async def _serve_stdio(server: Server[Any]) -> None:
    with claimed_stdin() as stdin:
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            answering = AnsweringReadStream(read_stream, write_stream)
            try:
                await server.run(answering, write_stream, server.create_initialization_options())
            finally:
                # Text a library printed during the session may still sit in sys.stdout's
                # buffer; flush it while fd 1 still points at stderr, before the transport
                # restores it.
                sys.stdout.flush()


def _start_backfill(session: RecallSession) -> None:
    """Begin filling the configured model's tier as the session starts (if the index has
    chunks waiting; a never-indexed workspace starts it at its first search instead)."""
    from wherein.config import load_settings
    from wherein.errors import WhereinError
    from wherein.index.location import INDEX_FILE_NAME, index_dir

    try:
        if not (index_dir(session.workspace) / INDEX_FILE_NAME).is_file():
            return
    except OSError as err:  # an index folder that may not be searched: the first call says so
        logger.info("no background fill: %s", err)
        return
    try:
        session.start_backfill(load_settings(session.workspace))
    except WhereinError as err:  # a broken config is reported by the first call that needs it
        logger.info("no background fill: %s", err)


class _EscapingFormatter(logging.Formatter):
    """Each message on its one line; a traceback keeps its lines, with no control sequence."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        return one_line(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))


def serve(workspace: Path) -> int:
    """Serve `recall` over stdin/stdout until the host closes stdin; returns the exit code."""
    require_stdin()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_EscapingFormatter("wherein serve: %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("wherein").setLevel(logging.INFO)
    from wherein.index.prepare import start_fork_server

    # Before any thread: index jobs run in threads, and fork their workers from it.
    start_fork_server(workspace)
    anyio.run(_serve_stdio, create_server(workspace))
    return 0
