"""OpenAI Codex CLI rollouts: `sessions/YYYY/MM/DD/rollout-*.jsonl`, usage as running totals.

Codex logs `event_msg` lines of type `token_count` whose `total_token_usage` is cumulative for
the session, and re-emits the same total (after a turn ends, on rate-limit updates): summing
them, or their `last_token_usage`, overcounts. A request is therefore one change of the
cumulative total, and an event repeating the previous total is skipped. `input_tokens`
includes the cached part; `output_tokens` includes reasoning tokens.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wherein.meter.bounds import OutOfRange, check_count, check_time
from wherein.meter.jsonl import ReadStats, iter_json_lines
from wherein.meter.table import SOURCE_CODEX, Request, RequestTable

__all__ = ["UNKNOWN_MODEL", "codex_rollouts", "codex_sessions_dir", "read_codex"]

# Early rollouts (observed in September 2025 builds) have no turn_context naming the model;
# their requests are reported as unpriced under this name rather than guessed.
UNKNOWN_MODEL = "(model not recorded)"


def codex_sessions_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$CODEX_HOME/sessions`, default `~/.codex/sessions`."""
    env = os.environ if environ is None else environ
    home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else Path.home() / ".codex"
    return home / "sessions"


def codex_rollouts(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every rollout file under the sessions folder."""
    sessions = codex_sessions_dir(environ)
    return sorted(sessions.rglob("rollout-*.jsonl")) if sessions.is_dir() else []


def read_codex(path: Path, table: RequestTable, stats: ReadStats) -> None:
    """Add one rollout's requests to `table`; an event with a total or time out of range is
    rejected, and the next request is counted from the last total in range."""
    session = path.stem
    project = ""
    model = UNKNOWN_MODEL
    previous = (0, 0, 0)
    for line in iter_json_lines(path, stats):
        if not isinstance(line, dict):
            stats.note_malformed(path)
            continue
        kind = line.get("type")
        payload = line.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            if isinstance(payload.get("id"), str) and payload["id"]:
                session = payload["id"]
            if isinstance(payload.get("cwd"), str):
                project = payload["cwd"]
        elif kind == "turn_context" and isinstance(payload, dict):
            if isinstance(payload.get("model"), str) and payload["model"]:
                model = payload["model"]
            if not project and isinstance(payload.get("cwd"), str):
                project = payload["cwd"]
        elif kind == "event_msg" and isinstance(payload, dict):
            if payload.get("type") != "token_count" or payload.get("info") is None:
                continue  # other events, and token_count before the first response
            try:
                current = _totals(payload.get("info"))
                when = check_time(line.get("timestamp"))
            except OutOfRange as err:
                stats.note_rejected(path, err.reason)
                continue
            if current is None or when is None:
                stats.note_malformed(path)
                continue
            if current == previous:
                stats.repeated_events += 1
                continue
            delta = _delta(current, previous)
            previous = current
            input_tokens, cached, output = delta
            table.add(
                Request(
                    time=when,
                    session=session,
                    model=model,
                    project=project or path.parent.name,
                    input=max(input_tokens - cached, 0),
                    cache_read=min(cached, input_tokens),
                    cache_write_5m=0,
                    cache_write_1h=0,
                    output=output,
                    source=SOURCE_CODEX,
                )
            )


def _totals(info: Any) -> tuple[int, int, int] | None:
    """(input incl. cached, cached input, output incl. reasoning) from `info`, or None.

    Raises:
        OutOfRange: a total is negative or 10**12 or more (so is every request it would add).
    """
    if not isinstance(info, dict) or not isinstance(info.get("total_token_usage"), dict):
        return None
    usage = info["total_token_usage"]
    values = (
        usage.get("input_tokens"),
        usage.get("cached_input_tokens", 0),
        usage.get("output_tokens"),
    )
    if not all(check_count(v) for v in values):
        return None
    return values  # type: ignore[return-value]


def _delta(current: tuple[int, int, int], previous: tuple[int, int, int]) -> tuple[int, int, int]:
    """What one request added to the running total; a total that went down restarted."""
    (now_in, now_cached, now_out), (was_in, was_cached, was_out) = current, previous
    if now_in >= was_in and now_cached >= was_cached and now_out >= was_out:
        return now_in - was_in, now_cached - was_cached, now_out - was_out
    return current
