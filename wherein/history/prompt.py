"""The `recall-history` MCP prompt: the person's way to quote their past into a live turn.

A prompt, not a tool: the model cannot call it, only the person can (`/recall-history` in
clients that list prompts as slash commands). What it returns goes to the client only; nothing
is written anywhere, so recalled text is never stored, embedded or recalled again.
"""

from __future__ import annotations

import functools

import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from wherein.errors import UsageError, WhereinError
from wherein.history.quotes import render_prompt_text
from wherein.history.search import DEFAULT_LIMIT, MAX_LIMIT, search_history

__all__ = ["PROMPT_NAME", "get_history_prompt", "history_prompt"]

PROMPT_NAME = "recall-history"


def history_prompt() -> types.Prompt:
    """The prompt as `prompts/list` shows it."""
    return types.Prompt(
        name=PROMPT_NAME,
        title="Recall earlier agent conversations",
        description=(
            "Quote what was said in your earlier Claude Code and Codex conversations on this "
            "machine about a topic, verbatim, with the conversation, position, author and date."
        ),
        arguments=[
            types.PromptArgument(
                name="query", description="what the conversation was about", required=True
            ),
            types.PromptArgument(
                name="limit",
                description=f"how many conversations to quote (default {DEFAULT_LIMIT}, "
                f"at most {MAX_LIMIT})",
                required=False,
            ),
        ],
    )


async def get_history_prompt(params: types.GetPromptRequestParams) -> types.GetPromptResult:
    """Search the history index and return the quotations as one fenced user message.

    Raises:
        MCPError: the query or limit is unusable, or the search failed (no index, no local
            embedder); the message says what to do.
    """
    arguments = params.arguments or {}
    query = arguments.get("query", "")
    try:
        limit = _limit(arguments.get("limit"))
        search = functools.partial(search_history, query, limit=limit)
        result = await anyio.to_thread.run_sync(search)
    except UsageError as err:
        raise MCPError(types.INVALID_PARAMS, str(err)) from None
    except WhereinError as err:
        raise MCPError(types.INTERNAL_ERROR, str(err)) from None
    text = render_prompt_text(result)
    return types.GetPromptResult(
        description=f"{len(result.results)} quotations from earlier agent conversations",
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )


def _limit(raw: str | None) -> int | None:
    if raw is None or not raw.strip():
        return None
    try:
        return int(raw)
    except ValueError:
        raise UsageError(
            f"limit {raw!r} is not a whole number: give one from 1 to {MAX_LIMIT}."
        ) from None
