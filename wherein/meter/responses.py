"""What one Claude Code response line costs in tokens: the rules the baseline reader and the
status line share.

Kept apart from `claude.py` (which reads whole transcripts into tables) so that `wherein
statusline`, which runs on every refresh of the agent's status bar, imports only this and
the bounds it checks.
"""

from __future__ import annotations

import re
from typing import Any

from wherein.meter.bounds import (
    COUNT_TOO_LARGE,
    MAX_COUNT,
    NEGATIVE_COUNT,
    OutOfRange,
    check_cost,
    check_count,
    check_time,
)

__all__ = [
    "CACHE_SPLIT_KEYS",
    "LINE_TYPES",
    "RECALL_TOOL",
    "SYNTHETIC_MODEL",
    "USAGE_KEYS_SEEN",
    "response_usage",
    "short_label",
]

RECALL_TOOL = re.compile(r"^mcp__.+__recall$")  # mcp__<server>__recall, any server name
# Claude Code writes locally generated notices (API errors, "no response requested") as
# assistant lines with this model and zero usage: they are not billed model calls.
SYNTHETIC_MODEL = "<synthetic>"
# Line types Claude Code writes that hold no model call; any other is counted as not
# understood (a newer version's), never an error.
LINE_TYPES = frozenset(
    {
        "user",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "attachment",
        "result",
        "custom-title",
        "tag",
    }
)
# Usage fields that are read, or known to bill nothing extra; another field ending in
# `_tokens` may be a kind of token this meter does not price, and is counted as not understood.
USAGE_KEYS_SEEN = frozenset(
    {
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
        "cache_creation",
        "service_tier",
        "server_tool_use",
        "inference_geo",
    }
)
CACHE_SPLIT_KEYS = frozenset({"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"})


def short_label(value: Any) -> str:
    """A value from a line, quoted short enough to be a count's label."""
    text = value if isinstance(value, str) else type(value).__name__
    return repr(text[:40] + "..." if len(text) > 40 else text)


def response_usage(
    line: dict, message: dict, model: Any, stats: Any
) -> tuple[float, int, int, int, int, int, float | None] | None:
    """(time, input, cache read, 5-minute writes, 1-hour writes, output, stored cost) of one
    assistant line, or None when its usage is malformed; a usage field of a kind it does not
    know goes to `stats.note_not_understood`.

    Raises:
        OutOfRange: a count, the stored cost or the time is out of range (see bounds.py).
    """
    usage = message.get("usage")
    when = check_time(line.get("timestamp"))
    if type(usage) is not dict or type(model) is not str or not model or when is None:
        return None
    get = usage.get
    fresh, write, read, output = counts = (
        get("input_tokens"),
        get("cache_creation_input_tokens", 0),
        get("cache_read_input_tokens", 0),
        get("output_tokens"),
    )
    for count in counts:  # inline check_count: this runs once per line
        if type(count) is not int:
            return None
        if not 0 <= count < MAX_COUNT:
            raise OutOfRange(NEGATIVE_COUNT if count < 0 else COUNT_TOO_LARGE)
    write_1h = 0
    split = get("cache_creation")
    if type(split) is dict:
        one_hour = split.get("ephemeral_1h_input_tokens", 0)
        if not check_count(one_hour):
            return None
        # Whatever of the total the split does not put under 1h is billed at the 5-minute
        # rate, Anthropic's default TTL; a split larger than the total is capped by it.
        write_1h = min(one_hour, write)
        if not split.keys() <= CACHE_SPLIT_KEYS:
            for key in split.keys() - CACHE_SPLIT_KEYS:
                stats.note_not_understood(f"Claude cache_creation field {short_label(key)}")
    if not usage.keys() <= USAGE_KEYS_SEEN:
        for key in usage.keys() - USAGE_KEYS_SEEN:
            if key.endswith("_tokens"):
                stats.note_not_understood(f"Claude usage field {short_label(key)}")
    cost = line.get("costUSD")
    stored = float(cost) if cost is not None and check_cost(cost) else None  # else priced
    return when, fresh, read, write - write_1h, write_1h, output, stored
